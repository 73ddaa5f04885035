import type { ProductQuery } from '../../contract/buyer.js';
import { docId } from '../documents/model.js';
import { shownOffers, type Clause } from './filters.js';

// Product page: one product's shown offers in the order DECISIONS.md fixes (price, skuId, native
// before handoff, sellerId / variantId), paged by offset.

/** Elasticsearch refuses from + size beyond index.max_result_window (mappings/market.json). */
export const MAX_WINDOW = 100_000;

export function productOffersBody(productId: number, q: ProductQuery): Record<string, unknown> {
  const filter: Clause[] = [...shownOffers, { term: { productId } }];
  if (q.condition) filter.push({ terms: { condition: q.condition } });
  if (q.language) filter.push({ terms: { language: q.language } });
  if (q.finish) filter.push({ terms: { finish: q.finish } });
  return {
    from: q.offset,
    size: q.limit,
    track_total_hits: false,
    query: { bool: { filter } },
    sort: [{ price: 'asc' }, { skuId: 'asc' }, { laneOrder: 'asc' }, { ownerId: 'asc' }],
    _source: ['offer'],
  };
}

export function productDocBody(productId: number): Record<string, unknown> {
  return { size: 1, query: { ids: { values: [docId.product(productId)] } }, _source: ['product'] };
}
