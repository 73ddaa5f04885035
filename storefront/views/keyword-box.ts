// The header's keyword search: a combobox (WAI-ARIA 1.2 pattern, list autocomplete) offering the
// product names GET /search/suggest completes as the buyer types, after a short pause. Arrows move
// through the names, Enter or a click searches the one chosen (or what was typed), Escape closes the
// list and then clears the box. The input keeps the focus; the active name is its aria-activedescendant.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { getSuggest, isAbort, type SuggestData } from '../api.js';
import { qs, searchHref, withParam, type Route } from '../routes.js';
import { plural } from '../format.js';
import type { Shell } from './common.js';

/** Pause in typing before suggestions are asked for. */
const DEBOUNCE_MS = 120;
/** GET /search/suggest's bound on `q`. */
const MAX_SUGGEST_CHARS = 100;
const LIST_ID = 'keyword-suggestions';
const optionId = (i: number) => `keyword-suggestion-${i}`;

/** The suggestion request for `text` in the scope the search page shows (its game and store), or null when there is nothing to ask. */
export function suggestQuery(text: string, scope: URLSearchParams): string | null {
  const q = text.trim();
  if (q === '' || q.length > MAX_SUGGEST_CHARS) return null;
  const u = new URLSearchParams({ q });
  for (const name of ['category', 'sellerCode']) {
    const v = scope.get(name);
    if (v) u.set(name, v);
  }
  return qs(u);
}

export function KeywordBox({ shell, route }: { shell: Shell; route: Route }) {
  const current = route.view === 'search' ? (route.query.get('keyword') ?? '') : '';
  const scope = route.view === 'search' ? route.query : new URLSearchParams();
  const [keyword, setKeyword] = useState(current);
  const [completions, setCompletions] = useState<SuggestData['completions']>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  /** What the buyer typed last (suggestions are for it; a chosen name does not ask again). */
  const [typed, setTyped] = useState<string | null>(null);

  useEffect(() => {
    setKeyword(current);
    setOpen(false);
    setTyped(null);
  }, [current]);

  useEffect(() => {
    const query = typed === null ? null : suggestQuery(typed, scope);
    if (query === null) {
      setCompletions([]);
      return;
    }
    const ctrl = new AbortController();
    const timer = setTimeout(() => {
      getSuggest(query, ctrl.signal).then(
        (a) => {
          setCompletions(a.data.completions);
          setActive(-1);
        },
        (err: unknown) => {
          // Suggestions are a help: without them the box is a plain search box.
          if (!isAbort(err)) setCompletions([]);
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      ctrl.abort();
    };
  }, [typed, scope.get('category'), scope.get('sellerCode')]);

  const expanded = open && completions.length > 0;

  const search = (text: string, at: number) => {
    setOpen(false);
    setTyped(null);
    setKeyword(text);
    // On the search page the filters stay; elsewhere a keyword starts a new search.
    const base = route.view === 'search' ? route.query : new URLSearchParams();
    shell.navigate(searchHref(withParam(base, 'keyword', text.trim())), { at });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const n = completions.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (n === 0) return;
      e.preventDefault();
      if (!expanded) {
        setOpen(true);
        setActive(e.key === 'ArrowDown' ? 0 : n - 1);
      } else if (e.altKey) {
        if (e.key === 'ArrowUp') setOpen(false);
      } else {
        setActive(e.key === 'ArrowDown' ? (active + 1) % n : active <= 0 ? n - 1 : active - 1);
      }
    } else if (e.key === 'Enter' && expanded && active >= 0) {
      e.preventDefault();
      search(completions[active]!.text, e.timeStamp);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      if (expanded) setOpen(false);
      else {
        setKeyword('');
        setTyped(null);
      }
    }
  };

  return html`<form
    class="keyword"
    role="search"
    onSubmit=${(e: SubmitEvent) => {
      e.preventDefault();
      search(keyword, e.timeStamp);
    }}
  >
    <label for="keyword" class="visually-hidden">Search cards by name</label>
    <div class="combo">
      <input
        id="keyword"
        type="search"
        name="keyword"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded=${expanded ? 'true' : 'false'}
        aria-controls=${LIST_ID}
        aria-activedescendant=${expanded && active >= 0 ? optionId(active) : undefined}
        autocomplete="off"
        placeholder="Search cards by name"
        value=${keyword}
        onInput=${(e: Event) => {
          const text = (e.target as HTMLInputElement).value;
          setKeyword(text);
          setTyped(text);
          setOpen(true);
          setActive(-1);
        }}
        onKeyDown=${onKeyDown}
        onBlur=${() => setOpen(false)}
        maxlength="255"
      />
      <ul id=${LIST_ID} role="listbox" aria-label="Suggested card names" class="suggestions" hidden=${!expanded}>
        ${completions.map(
          (c, i) =>
            html`<li
              key=${c.text}
              id=${optionId(i)}
              role="option"
              aria-selected=${i === active ? 'true' : 'false'}
              data-product-count=${c.productCount}
              onMouseDown=${(e: MouseEvent) => e.preventDefault()}
              onClick=${(e: MouseEvent) => search(c.text, e.timeStamp)}
            >
              <span class="suggestion-name">${c.text}</span>
              <span class="suggestion-count">${plural(c.productCount, 'product', 'products')}</span>
            </li>`,
        )}
      </ul>
    </div>
    <p class="visually-hidden" role="status">
      ${expanded ? `${plural(completions.length, 'suggestion', 'suggestions')}: use the up and down arrows to choose.` : ''}
    </p>
    <button type="submit">Search</button>
  </form>`;
}
