// Pieces every view uses: the shell's services, links that navigate in place, prices, product
// images with a placeholder, and error notices.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { ApiFailure, type Answer } from '../api.js';
import { formatMinor } from '../format.js';
import type { StoredLine } from '../cart.js';

/** What the app shell gives each view. */
export interface Shell {
  /** Goes to `href` in place (pushState, or replaceState); `at`: the input event's timestamp of a buyer's action. */
  navigate(href: string, opts?: { replace?: boolean; at?: number }): void;
  /** Every API answer passes here: it turns the Degraded Mode banner on or off. */
  onAnswer<T>(answer: Answer<T>): Answer<T>;
  cart: StoredLine[];
  setCart(lines: StoredLine[]): void;
  /** The last search the buyer saw, for "back to results". */
  lastSearch: string;
}

/** A plain click (no modifier, main button) navigates in place; anything else is the browser's. */
export function follow(shell: Shell, e: MouseEvent, href: string): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  shell.navigate(href, { at: e.timeStamp });
}

export function Link({ shell, href, children, ...rest }: { shell: Shell; href: string; children: unknown; [attr: string]: unknown }) {
  return html`<a href=${href} onClick=${(e: MouseEvent) => follow(shell, e, href)} ...${rest}>${children}</a>`;
}

/** A typed quantity as a whole number from 1 to `max`. */
export const clampQuantity = (raw: string, max = Infinity): number => Math.max(1, Math.min(max, Math.floor(Number(raw)) || 1));

/** A labelled quantity field (`name="quantity"`); `onValue` gets each committed value, clamped. */
export function QuantityInput({ id, value, max, onValue }: { id: string; value: number; max?: number; onValue?: (n: number) => void }) {
  return html`<label for=${id}>Quantity</label>
    <input
      id=${id}
      name="quantity"
      type="number"
      inputmode="numeric"
      min="1"
      max=${max}
      value=${value}
      onChange=${(e: Event) => onValue?.(clampQuantity((e.target as HTMLInputElement).value, max))}
    />`;
}

/** A price in minor units: the formatted amount, with the exact value for machines. */
export function Money({ minor }: { minor: number }) {
  return html`<data class="money" value=${minor}>${formatMinor(minor)}</data>`;
}

/** The catalog image, or a neat placeholder when there is none or it fails to load (no network). */
export function ProductImage({ url, name, size }: { url: string | null; name: string | null; size: 'card' | 'large' }) {
  const [failed, setFailed] = useState<string | null>(null);
  const label = name ?? 'Product';
  if (!url || failed === url) {
    return html`<div class=${`image image-${size} image-missing`} role="img" aria-label=${`${label}: no image`}>
      <span aria-hidden="true">${initials(label)}</span>
    </div>`;
  }
  return html`<img
    class=${`image image-${size}`}
    src=${url}
    alt=${label}
    loading="lazy"
    decoding="async"
    referrerpolicy="no-referrer"
    onError=${() => setFailed(url)}
  />`;
}

function initials(name: string): string {
  const words = name.match(/[\p{L}\p{N}]+/gu) ?? [];
  return (
    words
      .slice(0, 2)
      .map((w) => [...w][0]!.toUpperCase())
      .join('') || '?'
  );
}

/** What went wrong, in words, never a blank page: the API's own message for a refused request. */
export function ErrorNotice({ error, onRetry, shell }: { error: unknown; onRetry?: () => void; shell: Shell }) {
  const failure = error instanceof ApiFailure ? error : new ApiFailure(String((error as Error)?.message ?? error), null, null);
  const unreachable = failure.status === null;
  // A 4xx other than a rate limit will not change by asking again.
  const refused = failure.status !== null && failure.status >= 400 && failure.status < 500 && failure.status !== 429;
  const fields = Array.isArray(failure.details)
    ? (failure.details as { field?: unknown; message?: unknown }[]).filter((d) => typeof d.field === 'string' && typeof d.message === 'string')
    : [];
  return html`<div class="notice notice-error" role="alert">
    <h2>${unreachable ? 'The marketplace could not be reached' : refused ? 'This page could not be shown' : 'Something went wrong'}</h2>
    <p>
      ${
        unreachable
          ? 'Check your connection, then try again.'
          : `The marketplace answered: ${failure.message}${failure.code ? ` (${failure.code}, HTTP ${failure.status})` : ` (HTTP ${failure.status})`}.`
      }
    </p>
    ${
      fields.length > 0 &&
      html`<ul>
        ${fields.map((d) => html`<li><code>${d.field as string}</code>: ${d.message as string}</li>`)}
      </ul>`
    }
    <p class="notice-actions">
      ${onRetry && !refused && html`<button type="button" onClick=${onRetry}>Try again</button>`}
      <${Link} shell=${shell} href="/">Start a new search</${Link}>
    </p>
  </div>`;
}
