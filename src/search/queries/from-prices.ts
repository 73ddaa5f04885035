import type { SearchItem, SearchQuery } from '../../contract/buyer.js';
import { pricedItem } from '../documents/builders.js';
import { DIMS, type Dim } from '../documents/offer-groups.js';
import { anyOf, bool, shownOffers, type Clause } from './filters.js';
import { offerSelections } from './offer-search.js';
import type { SearchPage, UnpricedPage } from './search-result.js';

// A search item's fromPrice, read from the offers of the page's products. Cards hold no prices
// (model.ts CardItem): a repricing then rewrites offers only, never the cards (docs/indexing.md).
// The lowest price of a product's matching (sku, store) groups is the lowest price of its shown
// offers that match the offer-level selections, which are fields of each offer as of its card's.

/** The offer document's field per offer-level dimension (the card's folded fields carry the same names). */
const OFFER_FIELD: Record<Dim, string> = { c: 'condition', l: 'language', f: 'finish', m: 'checkoutMode', s: 'sellerCode' };

/** The lowest price of each product's shown offers matching the query's offer-level selections. */
export function fromPriceBody(q: SearchQuery, productIds: readonly number[]): Record<string, unknown> {
  const sel = offerSelections(q);
  const selected: Clause[] = DIMS.filter((d) => sel[d] !== undefined).map((d) => anyOf(OFFER_FIELD[d], sel[d]!));
  return {
    size: 0,
    track_total_hits: false,
    query: bool([...shownOffers, { terms: { productId: [...productIds] } }, ...selected]),
    aggs: { products: { terms: { field: 'productId', size: productIds.length }, aggs: { fromPrice: { min: { field: 'price' } } } } },
  };
}

interface PriceBucket {
  key: number;
  fromPrice: { value: number | null };
}

/** The response of fromPriceBody() as productId -> lowest price. */
export function fromPrices(res: { aggregations?: Record<string, unknown> }): Map<number, number> {
  const buckets = (res.aggregations?.products as { buckets: PriceBucket[] } | undefined)?.buckets ?? [];
  const out = new Map<number, number>();
  for (const b of buckets) if (b.fromPrice.value !== null) out.set(Number(b.key), b.fromPrice.value);
  return out;
}

/**
 * The page with each item's price. The two reads see the index as of their own refresh: an item
 * whose product has no matching shown offer in the second (its last one went in between) is left
 * out, as the next refresh would leave out its card; the cursor stays the page's last card's key,
 * so no product is skipped or repeated.
 */
export function pricedPage(page: UnpricedPage, prices: ReadonlyMap<number, number>): SearchPage {
  const items: SearchItem[] = [];
  for (const c of page.items) {
    const price = prices.get(c.productId);
    if (price !== undefined) items.push(pricedItem(c, price));
  }
  return { items, facets: page.facets, nextAfter: page.nextAfter };
}
