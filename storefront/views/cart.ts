// The cart: the lines kept in this browser, refreshed through POST /lines/lookup. A line that
// sold out or vanished shows as such, a changed price is flagged, and the total counts only what
// can be bought now.
import type { CartLine } from '../../src/contract/buyer.js';
import { html } from 'htm/preact';
import { lookupLines } from '../api.js';
import { cartRows, removeLine, setQuantity, type CartRow } from '../cart.js';
import { plural } from '../format.js';
import { productHref } from '../routes.js';
import { ErrorNotice, Link, Money, QuantityInput, type Shell } from './common.js';
import { useAnswer } from './use-answer.js';

export function CartView({ shell }: { shell: Shell }) {
  // Only the set of pairs matters to the lookup, not the quantities.
  const pairs = shell.cart.map((l) => `${l.sellerId}:${l.skuId}`).join(',');
  const answer = useAnswer(
    async (signal): Promise<CartLine[]> =>
      shell.cart.length === 0
        ? []
        : shell.onAnswer(
            await lookupLines(
              shell.cart.map(({ sellerId, skuId }) => ({ sellerId, skuId })),
              signal,
            ),
          ).data.lines,
    [pairs],
  );
  const { value: lookup, error, busy } = answer;

  const { rows, total, buyableLines } = cartRows(shell.cart, lookup ?? []);
  return html`<section
    class="cart"
    aria-labelledby="cart-heading"
    aria-busy=${busy ? 'true' : 'false'}
    data-state=${busy ? 'loading' : error ? 'error' : 'ready'}
  >
    <h1 id="cart-heading" tabindex="-1">Your cart</h1>
    ${error && html`<${ErrorNotice} error=${error} shell=${shell} onRetry=${answer.retry} />`}
    ${
      shell.cart.length === 0
        ? html`<p>Your cart is empty. <${Link} shell=${shell} href=${shell.lastSearch}>Find cards</${Link}></p>`
        : html`<p class="hint">Prices and stock are checked with the sellers each time this page opens.</p>
            ${
              lookup &&
              html`<ul class="cart-lines">
                ${rows.map((r) => html`<${CartRowView} key=${`${r.line.sellerId}:${r.line.skuId}`} shell=${shell} row=${r} />`)}
              </ul>`
            }
            <div class="cart-summary">
              <p class="cart-total">
                Total${lookup ? ` (${plural(buyableLines, 'line', 'lines')} that can be bought now)` : ''}:${' '}
                <strong data-total=${lookup ? total : ''}>${lookup ? html`<${Money} minor=${total} />` : '…'}</strong>
              </p>
              <button type="button" onClick=${answer.retry} disabled=${busy}>Check prices and stock again</button>
            </div>
            <p class="results-count" role="status">${busy ? 'Checking prices and stock…' : ''}</p>`
    }
  </section>`;
}

const STATUS_TEXT: Record<Exclude<CartRow['status'], 'ok'>, string> = {
  'sold-out': 'Sold out',
  gone: 'No longer available',
  'seller-unavailable': 'Seller unavailable',
};

function CartRowView({ shell, row }: { shell: Shell; row: CartRow }) {
  const { line, info, status } = row;
  const name = info?.product?.name ?? (info?.product ? 'Unnamed product' : `Card ${line.skuId}`);
  const printing = [info?.sku?.condition, info?.sku?.language, info?.sku?.finish].filter((x): x is string => !!x).join(' · ');
  const qtyId = `cart-qty-${line.sellerId}-${line.skuId}`;
  const why =
    status === 'seller-unavailable'
      ? info?.sellerUnavailable?.reason === 'SELLER_ON_VACATION'
        ? 'The seller is on vacation; this line cannot be bought for now.'
        : 'The seller cannot take orders right now.'
      : status === 'sold-out'
        ? 'The seller has none left.'
        : status === 'gone'
          ? 'This card or seller is no longer listed.'
          : row.buyable < line.quantity
            ? `Only ${row.buyable} left: ${row.buyable} of your ${line.quantity} can be bought.`
            : '';
  return html`<li class=${`cart-line cart-line-${status}`} data-status=${status} data-seller-id=${line.sellerId} data-sku-id=${line.skuId}>
    <div class="cart-what">
      <p class="cart-name">
        ${info?.product ? html`<${Link} shell=${shell} href=${productHref(info.product.productId)}>${name}</${Link}>` : name}
        ${status !== 'ok' && html` <span class="badge badge-warn">${STATUS_TEXT[status]}</span>`}
      </p>
      <p class="muted">${[info?.product?.set, printing, info?.seller ? `sold by ${info.seller.name}` : null].filter(Boolean).join(' · ')}</p>
      ${why && html`<p class="cart-why">${why}</p>`}
    </div>
    <div class="cart-price">
      <span class="muted label">Price</span
      >${info?.currentPrice != null ? html`<${Money} minor=${info.currentPrice} />` : html`<span class="muted">—</span>`}
      ${row.priceChanged && html`<p class="price-changed" data-price-changed="true">Price changed: was <${Money} minor=${line.addedPrice} /></p>`}
    </div>
    <div class="cart-qty">
      <${QuantityInput} id=${qtyId} value=${line.quantity} onValue=${(n: number) => shell.setCart(setQuantity(shell.cart, line, n))} />
    </div>
    <p class="cart-line-total">
      <span class="muted label">Subtotal</span>
      ${row.lineTotal !== null ? html`<${Money} minor=${row.lineTotal} />` : html`<span class="muted">not counted</span>`}
    </p>
    <button type="button" class="link-button" onClick=${() => shell.setCart(removeLine(shell.cart, line))} aria-label=${`Remove ${name} from the cart`}>
      Remove
    </button>
  </li>`;
}
