// A product's page: its catalog details and every shown offer, cheapest first (the API's order),
// filtered by condition, language and finish, paged by offset; an express offer goes to the cart.
import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import type { Offer, Product } from '../../src/contract/buyer.js';
import { html } from 'htm/preact';
import { getProduct } from '../api.js';
import { addLine } from '../cart.js';
import { PRODUCT_FILTERS, productHref, qs, searchHref, withParam, withValue, type ProductFilter } from '../routes.js';
import { plural } from '../format.js';
import { resultsShown } from '../timing.js';
import { clampQuantity, ErrorNotice, Link, Money, ProductImage, QuantityInput, type Shell } from './common.js';
import { useAnswer } from './use-answer.js';

/** Offers per page (one more is asked, to know whether a next page exists). */
export const OFFERS_PER_PAGE = 20;
/** The filters' choices: the values among the product's first offers (the API's largest page). */
const CHOICES_FROM = 100;
const FILTER_LEGENDS: Record<ProductFilter, string> = { condition: 'Condition', language: 'Language', finish: 'Finish' };

interface Loaded {
  key: string;
  product: Product | null;
  offers: Offer[];
  hasNext: boolean;
  choices: Record<ProductFilter, string[]>;
  apiMs: number;
}

function choicesOf(offers: Offer[], query: URLSearchParams): Record<ProductFilter, string[]> {
  const out = {} as Record<ProductFilter, string[]>;
  for (const f of PRODUCT_FILTERS) {
    const values = new Set<string>();
    for (const o of offers) if (o[f] !== null) values.add(o[f]);
    for (const v of query.getAll(f)) values.add(v);
    out[f] = [...values].sort((a, b) => a.localeCompare(b, 'en'));
  }
  return out;
}

export function ProductView({ shell, productId, query }: { shell: Shell; productId: string; query: URLSearchParams }) {
  const key = `${productId}${qs(query)}`;
  const [added, setAdded] = useState('');
  const answer = useAnswer(
    async (signal): Promise<Loaded> => {
      // Unfiltered from the cheapest, one request of the API's largest page gives both the page
      // and the filters' choices; otherwise the page and the choices are two requests side by side.
      const plain = !PRODUCT_FILTERS.some((f) => query.has(f)) && !query.has('offset');
      const pageQuery = withParam(query, 'limit', String(plain ? CHOICES_FROM : OFFERS_PER_PAGE + 1));
      const [page, all] = await Promise.all([
        getProduct(productId, qs(pageQuery), signal),
        plain ? null : getProduct(productId, `?limit=${CHOICES_FROM}`, signal),
      ]);
      shell.onAnswer({ ...page, degraded: page.degraded || all?.degraded === true });
      return {
        key,
        product: page.data.product,
        offers: page.data.offers.slice(0, OFFERS_PER_PAGE),
        hasNext: page.data.offers.length > OFFERS_PER_PAGE,
        choices: choicesOf((all ?? page).data.offers, query),
        apiMs: Math.max(page.ms, all?.ms ?? 0),
      };
    },
    [key],
  );
  const { value: loaded, error, busy } = answer;

  useLayoutEffect(() => {
    if (loaded && !busy) resultsShown('storefront:product', loaded.apiMs);
  }, [loaded, busy]);

  useEffect(() => {
    const name = loaded?.product?.name;
    if (name) document.title = `${name} — Card Marketplace`;
  }, [loaded]);

  const go = (q: URLSearchParams, at?: number) => shell.navigate(productHref(productId, q), { at });
  const offset = Number(query.get('offset') ?? '0') || 0;
  const shown = loaded && loaded.key === key ? loaded : null;
  const product = (shown ?? loaded)?.product ?? null;

  const addToCart = (offer: Offer, quantity: number) => {
    if (offer.sellerId === null) return;
    shell.setCart(addLine(shell.cart, { sellerId: offer.sellerId, skuId: offer.skuId, quantity, addedPrice: offer.price }));
    const what = [product?.name, offer.condition].filter(Boolean).join(', ');
    setAdded(`Added ${quantity} × ${what || 'this card'} from ${offer.sellerName ?? 'the seller'} to your cart.`);
  };

  return html`<article
    class="product"
    aria-busy=${busy ? 'true' : 'false'}
    data-state=${busy ? 'loading' : error ? 'error' : 'ready'}
    data-query=${error && !busy ? key : shown?.key}
  >
    <p class="back"><${Link} shell=${shell} href=${shell.lastSearch}>← Back to search</${Link}></p>
    ${error && html`<${ErrorNotice} error=${error} shell=${shell} onRetry=${answer.retry} />`}
    ${
      (shown ?? loaded) &&
      html`<header class="product-head">
          <${ProductImage} url=${product?.imageUrl ?? null} name=${product?.name ?? null} size="large" />
          <div class="product-info">
            <h1 tabindex="-1">${product ? (product.name ?? 'Unnamed product') : 'Product not in the catalog'}</h1>
            ${product && html`<${ProductDetails} product=${product} />`}
          </div>
        </header>
        <section class="offers-section" aria-labelledby="offers-heading">
          <h2 id="offers-heading">Offers</h2>
          <p class="hint">Cheapest first.</p>
          <${OfferFilters} choices=${(shown ?? loaded)!.choices} query=${query} go=${go} />
          <p class="visually-hidden" role="status">${added}</p>
          ${added && html`<p class="notice notice-ok" aria-hidden="true">${added} <${Link} shell=${shell} href="/?view=cart">View cart</${Link}></p>`}
          <p class="results-count" role="status">${busy ? 'Loading…' : shown && shown.offers.length === 0 ? 'No offers match these filters.' : ''}</p>
          <ol class="offers" start=${offset + 1}>
            ${(shown ?? loaded)!.offers.map((o) => html`<${OfferRow} key=${`${o.lane}:${o.sellerId ?? o.variantId}:${o.skuId}`} shell=${shell} offer=${o} onAdd=${addToCart} />`)}
          </ol>
          <nav class="pager" aria-label="Offer pages">
            ${
              offset > 0 &&
              html`<${Link} shell=${shell} href=${productHref(productId, withParam(query, 'offset', String(Math.max(0, offset - OFFERS_PER_PAGE)), '0'))} rel="prev"
            >← Cheaper offers</${Link}
          >`
            }
            ${
              shown?.hasNext &&
              html`<${Link} shell=${shell} href=${productHref(productId, withParam(query, 'offset', String(offset + OFFERS_PER_PAGE)))} rel="next"
            >More offers →</${Link}
          >`
            }
          </nav>
        </section>`
    }
    ${!loaded && busy && html`<p role="status">Loading…</p>`}
  </article>`;
}

function ProductDetails({ product }: { product: Product }) {
  const rows: [string, string][] = [];
  if (product.set) rows.push(['Set', product.set]);
  if (product.rarity) rows.push(['Rarity', product.rarity]);
  if (product.collectorNumber) rows.push(['Collector number', product.collectorNumber]);
  for (const d of product.details) rows.push([d.label, d.value]);
  if (rows.length === 0) return null;
  return html`<dl class="details">
    ${rows.map(
      ([k, v]) =>
        html`<div>
          <dt>${k}</dt>
          <dd>${v}</dd>
        </div>`,
    )}
  </dl>`;
}

function OfferFilters({
  choices,
  query,
  go,
}: {
  choices: Record<ProductFilter, string[]>;
  query: URLSearchParams;
  go: (q: URLSearchParams, at?: number) => void;
}) {
  // A filter change starts again from the cheapest offer.
  const base = withParam(query, 'offset', '');
  return html`<form class="offer-filters" aria-label="Filter offers" onSubmit=${(e: Event) => e.preventDefault()}>
    ${PRODUCT_FILTERS.map((f) =>
      choices[f].length === 0
        ? null
        : html`<fieldset class="facet" data-filter=${f} key=${f}>
            <legend>${FILTER_LEGENDS[f]}</legend>
            <ul>
              ${choices[f].map((v, i) => {
                const id = `offer-${f}-${i}`;
                return html`<li key=${v}>
                  <input
                    type="checkbox"
                    id=${id}
                    value=${v}
                    checked=${query.getAll(f).includes(v)}
                    onChange=${(e: Event) => go(withValue(base, f, v, (e.target as HTMLInputElement).checked, true), e.timeStamp)}
                  />
                  <label for=${id}>${v}</label>
                </li>`;
              })}
            </ul>
          </fieldset>`,
    )}
  </form>`;
}

function OfferRow({ shell, offer, onAdd }: { shell: Shell; offer: Offer; onAdd: (o: Offer, quantity: number) => void }) {
  const [quantity, setQuantity] = useState(1);
  const printing = [offer.condition, offer.language, offer.finish].filter((x): x is string => !!x).join(' · ');
  const seller = offer.sellerName ?? 'Unnamed store';
  const qtyId = `qty-${offer.lane}-${offer.sellerId ?? offer.variantId}-${offer.skuId}`;
  return html`<li class="offer" data-price=${offer.price} data-seller-id=${offer.sellerId ?? ''} data-sku-id=${offer.skuId}>
    <div class="offer-main">
      <p class="offer-seller">
        ${
          offer.sellerCode
            ? html`<${Link} shell=${shell} href=${searchHref(new URLSearchParams({ sellerCode: offer.sellerCode }))} title=${`More from ${seller}`}>${seller}</${Link}>`
            : seller
        }
        ${offer.reviewScore.score !== null && html` <span class="muted">★ ${offer.reviewScore.score.toFixed(2)} (${plural(offer.reviewScore.count, 'review', 'reviews')})</span>`}
      </p>
      <p class="offer-printing">${printing || 'Printing not stated'}${offer.isSealed ? html` · <span class="badge">Sealed</span>` : null}</p>
    </div>
    <p class="offer-price"><${Money} minor=${offer.price} /></p>
    <p class="offer-stock">${plural(offer.available, 'available', 'available')}</p>
    ${
      offer.checkoutMode === 'manual' || offer.sellerId === null
        ? html`<p class="offer-buy muted">Sold on the store's own site</p>`
        : html`<form
            class="offer-buy"
            onSubmit=${(e: Event) => {
              e.preventDefault();
              // The field as typed, even when Enter submits before its change event.
              const field = (e.currentTarget as HTMLFormElement).elements.namedItem('quantity') as HTMLInputElement;
              onAdd(offer, clampQuantity(field.value, offer.available));
            }}
          >
            <${QuantityInput} id=${qtyId} value=${quantity} max=${offer.available} onValue=${setQuantity} />
            <button type="submit" aria-label=${`Add to cart: ${printing || 'this offer'} from ${seller}`}>Add to cart</button>
          </form>`
    }
  </li>`;
}
