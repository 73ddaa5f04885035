// Search: the facets as choice lists with the API's counts, sort and checkout mode, product cards
// and "more results" following nextCursor. Everything shown about the data comes from GET /search.
import { useLayoutEffect, useState } from 'preact/hooks';
import type { FacetName, Facets, SearchItem } from '../../src/contract/buyer.js';
import { html } from 'htm/preact';
import { getSearch, getSuggest, isAbort } from '../api.js';
import { FACET_PARAMS } from '../../src/contract/facets.js';
import { productHref, qs, searchHref, withParam, withValue } from '../routes.js';
import { plural } from '../format.js';
import { resultsShown } from '../timing.js';
import { ErrorNotice, follow, Link, Money, ProductImage, type Shell } from './common.js';
import { useAnswer } from './use-answer.js';
import { suggestQuery } from './keyword-box.js';

/** The page's own names of the facets, in the order shown. */
const FACET_LEGENDS: [FacetName, string][] = [
  ['category', 'Game'],
  ['set', 'Set'],
  ['rarity', 'Rarity'],
  ['condition', 'Condition'],
  ['language', 'Language'],
  ['finish', 'Finish'],
  ['collectorNumber', 'Collector number'],
  ['seller', 'Store'],
];
const CHECKOUT_MODES: [string, string][] = [
  ['any', 'Any checkout'],
  ['express', 'Express checkout here'],
  ['manual', "On the store's own site"],
];
const SORTS: [string, string][] = [
  ['name', 'Name, A to Z'],
  ['name_desc', 'Name, Z to A'],
];
/** Values shown per facet before "show all" (selected values always show). */
const FACET_PREVIEW = 8;

interface Loaded {
  key: string;
  pages: number;
  items: SearchItem[];
  facets: Facets;
  nextCursor: string | null;
  apiMs: number;
  /** A keyword that lists nothing: the spelling GET /search/suggest says lists products, if any. */
  correction: string | null;
}

/** The first page of `query`, then `pages - 1` more through nextCursor (a reload or a shared link of a walk). */
async function loadPages(shell: Shell, query: URLSearchParams, pages: number, signal: AbortSignal): Promise<Loaded> {
  const first = shell.onAnswer(await getSearch(qs(query), signal));
  const out: Loaded = {
    key: qs(query),
    pages: 1,
    items: [...first.data.items],
    facets: first.data.facets,
    nextCursor: first.data.nextCursor,
    apiMs: first.ms,
    correction: first.data.items.length === 0 ? await correctionFor(query, signal) : null,
  };
  while (out.pages < pages && out.nextCursor) {
    const next = shell.onAnswer(await getSearch(qs(withParam(query, 'cursor', out.nextCursor)), signal));
    out.items.push(...next.data.items);
    out.nextCursor = next.data.nextCursor;
    out.pages++;
    out.apiMs += next.ms;
  }
  return out;
}

/** The correction of the query's keyword in its scope; null without one, or when suggestions cannot be had. */
async function correctionFor(query: URLSearchParams, signal: AbortSignal): Promise<string | null> {
  const ask = suggestQuery(query.get('keyword') ?? '', query);
  if (ask === null) return null;
  try {
    return (await getSuggest(`${ask}&limit=1`, signal)).data.correction;
  } catch (err) {
    if (isAbort(err)) throw err;
    return null;
  }
}

export function SearchView({ shell, query, pages }: { shell: Shell; query: URLSearchParams; pages: number }) {
  const key = qs(query);
  const answer = useAnswer(
    (signal) => loadPages(shell, query, pages, signal),
    [key, pages],
    // A "more results" click has already loaded this page count for this query.
    (l) => l.key === key && l.pages === pages,
  );
  const { value: loaded, error, busy } = answer;

  useLayoutEffect(() => {
    if (loaded && !busy) resultsShown('storefront:search', loaded.apiMs);
  }, [loaded, busy]);

  const go = (q: URLSearchParams, at?: number) => shell.navigate(searchHref(q), { at });

  const more = async () => {
    if (!loaded?.nextCursor) return;
    answer.update({ value: loaded, error: null, busy: true });
    try {
      const next = shell.onAnswer(await getSearch(qs(withParam(query, 'cursor', loaded.nextCursor))));
      const value = { ...loaded, items: [...loaded.items, ...next.data.items], nextCursor: next.data.nextCursor, pages: loaded.pages + 1, apiMs: next.ms };
      answer.update({ value, error: null, busy: false });
      shell.navigate(searchHref(query, value.pages), { replace: true });
    } catch (error) {
      answer.update({ value: loaded, error, busy: false });
    }
  };

  const shown = loaded && loaded.key === key ? loaded : null;
  return html`<div class="search">
    <h1 tabindex="-1" class="visually-hidden">${query.get('keyword') ? `Search results for “${query.get('keyword')}”` : 'Browse cards'}</h1>
    <details class="filters" open=${!narrowScreen()}>
      <summary>Filters</summary>
      <${Filters} shell=${shell} query=${query} facets=${(shown ?? loaded)?.facets ?? null} go=${go} />
    </details>
    <section
      class="results"
      aria-labelledby="results-heading"
      aria-busy=${busy ? 'true' : 'false'}
      data-state=${busy ? 'loading' : error ? 'error' : 'ready'}
      data-query=${error && !busy ? key : shown?.key}
      data-pages=${shown?.pages}
    >
      <div class="results-bar">
        <h2 id="results-heading">Results</h2>
        <${Controls} query=${query} go=${go} />
      </div>
      <${ActiveFilters} shell=${shell} query=${query} facets=${(shown ?? loaded)?.facets ?? null} />
      <p class="results-count" role="status">
        ${
          busy
            ? 'Loading…'
            : shown
              ? shown.items.length === 0
                ? 'No cards match this search.'
                : `${plural(shown.items.length, 'product', 'products')} shown${shown.nextCursor ? ', more available' : ''}.`
              : ''
        }
      </p>
      ${
        !busy &&
        shown?.correction &&
        html`<p class="did-you-mean">Did you mean <${Link} shell=${shell} href=${searchHref(withParam(query, 'keyword', shown.correction))}>${shown.correction}</${Link}>?</p>`
      }
      ${error && html`<${ErrorNotice} error=${error} shell=${shell} onRetry=${answer.retry} />`}
      ${
        (shown ?? loaded) &&
        html`<ul class="cards">
          ${(shown ?? loaded)!.items.map((item) => html`<${ProductCard} key=${item.productId} shell=${shell} item=${item} />`)}
        </ul>`
      }
      ${shown?.nextCursor && !error && html`<button type="button" class="more" onClick=${more} disabled=${busy}>More results</button>`}
    </section>
  </div>`;
}

const narrowScreen = () => typeof matchMedia === 'function' && matchMedia('(max-width: 720px)').matches;

function Controls({ query, go }: { query: URLSearchParams; go: (q: URLSearchParams, at?: number) => void }) {
  return html`<div class="controls">
    <label>
      Sort
      <select
        value=${query.get('sort') ?? 'name'}
        onChange=${(e: Event) => go(withParam(query, 'sort', (e.target as HTMLSelectElement).value, 'name'), e.timeStamp)}
      >
        ${SORTS.map(([v, label]) => html`<option value=${v}>${label}</option>`)}
      </select>
    </label>
    <label>
      Checkout
      <select
        value=${query.get('checkoutMode') ?? 'any'}
        onChange=${(e: Event) => go(withParam(query, 'checkoutMode', (e.target as HTMLSelectElement).value, 'any'), e.timeStamp)}
      >
        ${CHECKOUT_MODES.map(([v, label]) => html`<option value=${v}>${label}</option>`)}
      </select>
    </label>
  </div>`;
}

interface Choice {
  value: string;
  label: string;
  count: number | null;
}

function choicesOf(facets: Facets | null, name: FacetName, selected: string[]): Choice[] {
  const list: Choice[] =
    facets === null
      ? []
      : name === 'seller'
        ? facets.seller.map((s) => ({ value: s.sellerCode, label: s.storeName, count: s.count }))
        : facets[name].map((f) => ({ value: f.value, label: f.value, count: f.count }));
  // A selected value the answer does not list (no product left under the other filters) still shows, to be unticked.
  for (const v of selected) if (!list.some((c) => c.value === v)) list.push({ value: v, label: v, count: null });
  return list;
}

function Filters({
  shell,
  query,
  facets,
  go,
}: {
  shell: Shell;
  query: URLSearchParams;
  facets: Facets | null;
  go: (q: URLSearchParams, at?: number) => void;
}) {
  const any = FACET_LEGENDS.some(([name]) => query.has(FACET_PARAMS[name].param)) || query.has('checkoutMode');
  return html`<form class="facets" aria-label="Filters" onSubmit=${(e: Event) => e.preventDefault()}>
    ${any && html`<p><${Link} shell=${shell} href=${searchHref(unfiltered(query))}>Clear all filters</${Link}></p>`}
    ${FACET_LEGENDS.map(([name, legend]) => {
      const { param, multi } = FACET_PARAMS[name];
      const selected = query.getAll(param);
      const choices = choicesOf(facets, name, selected);
      if (choices.length === 0) return null;
      return html`<${FacetGroup}
        key=${name}
        name=${name}
        legend=${legend}
        multi=${multi}
        choices=${choices}
        selected=${selected}
        onPick=${(value: string, on: boolean, at: number) => go(withValue(query, param, value, on, multi), at)}
      />`;
    })}
  </form>`;
}

/** The query without its filters: keyword, sort and page size stay. */
function unfiltered(query: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const name of ['keyword', 'sort', 'limit']) for (const v of query.getAll(name)) out.append(name, v);
  return out;
}

function FacetGroup(props: {
  name: FacetName;
  legend: string;
  multi: boolean;
  choices: Choice[];
  selected: string[];
  onPick: (value: string, on: boolean, at: number) => void;
}) {
  const { name, legend, multi, choices, selected, onPick } = props;
  const [all, setAll] = useState(false);
  const visible = all ? choices : choices.filter((c, i) => i < FACET_PREVIEW || selected.includes(c.value));
  const listId = `facet-${name}`;
  const option = (c: Choice, i: number) => {
    const id = `${listId}-${i}`;
    const checked = selected.includes(c.value);
    return html`<li key=${c.value}>
      <input
        type=${multi ? 'checkbox' : 'radio'}
        id=${id}
        name=${listId}
        value=${c.value}
        checked=${checked}
        onChange=${(e: Event) => onPick(c.value, (e.target as HTMLInputElement).checked, e.timeStamp)}
      />
      <label for=${id}>
        <span class="facet-value">${c.label}</span>
        ${c.count !== null && html` <span class="facet-count" data-count=${c.count}>(${c.count.toLocaleString('en')})</span>`}
      </label>
    </li>`;
  };
  return html`<fieldset class="facet" data-facet=${name}>
    <legend>${legend}</legend>
    <ul id=${listId}>
      ${
        !multi &&
        html`<li key="">
          <input
            type="radio"
            id=${`${listId}-any`}
            name=${listId}
            value=""
            checked=${selected.length === 0}
            onChange=${(e: Event) => selected[0] !== undefined && onPick(selected[0], false, e.timeStamp)}
          />
          <label for=${`${listId}-any`}>Any</label>
        </li>`
      }
      ${visible.map((c) => option(c, choices.indexOf(c)))}
    </ul>
    ${
      choices.length > visible.length || all
        ? html`<button type="button" class="link-button" aria-controls=${listId} aria-expanded=${all ? 'true' : 'false'} onClick=${() => setAll(!all)}>
            ${all ? 'Show fewer' : `Show all ${choices.length}`}
          </button>`
        : null
    }
  </fieldset>`;
}

function ActiveFilters({ shell, query, facets }: { shell: Shell; query: URLSearchParams; facets: Facets | null }) {
  const chips: { label: string; next: URLSearchParams }[] = [];
  for (const [name, legend] of FACET_LEGENDS) {
    const { param, multi } = FACET_PARAMS[name];
    for (const v of query.getAll(param)) {
      const label = name === 'seller' ? (facets?.seller.find((s) => s.sellerCode === v)?.storeName ?? v) : v;
      chips.push({ label: `${legend}: ${label}`, next: withValue(query, param, v, false, multi) });
    }
  }
  if (chips.length === 0) return null;
  return html`<ul class="chips" aria-label="Active filters">
    ${chips.map(
      (c) =>
        html`<li>
          <a href=${searchHref(c.next)} onClick=${(e: MouseEvent) => follow(shell, e, searchHref(c.next))} aria-label=${`Remove filter ${c.label}`}>
            ${c.label} <span aria-hidden="true">×</span>
          </a>
        </li>`,
    )}
  </ul>`;
}

function ProductCard({ shell, item }: { shell: Shell; item: SearchItem }) {
  const href = productHref(item.productId);
  const meta = [item.set, item.category].filter((x): x is string => !!x).join(' · ');
  return html`<li class="card" data-product-id=${item.productId}>
    <${ProductImage} url=${item.imageUrl} name=${item.name} size="card" />
    <h3 class="card-name"><${Link} shell=${shell} href=${href} class="card-link">${item.name ?? 'Unnamed product'}</${Link}></h3>
    ${meta && html`<p class="card-meta">${meta}</p>`}
    <p class="card-price">From <${Money} minor=${item.fromPrice} /></p>
    <p class="card-sellers">${plural(item.sellerCount, 'seller', 'sellers')}${item.isSealed ? html` · <span class="badge">Sealed</span>` : null}</p>
  </li>`;
}
