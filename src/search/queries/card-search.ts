import { FACETS, type Facets, type SearchQuery } from '../../contract/buyer.js';
import type { CardDoc } from '../documents/model.js';
import { bool, FACET_FIELD, FACET_SIZE, facetClausesExcept, searchClauses } from './filters.js';
import { sellerFacetValue } from './search-result.js';
import type { UnpricedPage } from './search-result.js';

// GET /search over product cards (one document per product with a shown offer; see
// docs/search-design.md). Without an offer-level filter every shown offer of a product matches,
// so the card's precomputed sellerCount, isSealed and disclosures are the answer (its fromPrice is
// read from the offers: from-prices.ts), and
// a facet value's product count is the doc_count of its bucket: exact, and a pass over one
// document per product instead of a cardinality per bucket over every offer (the landing grid).

/** No filter selects offers within a product (those need the card's groups: offer-search.ts). */
export function usesCards(q: SearchQuery): boolean {
  return q.checkoutMode === 'any' && q.sellerCode === undefined && !q.condition && !q.language && !q.finish;
}

export function cardSearchBody(q: SearchQuery, after: string | null): Record<string, unknown> {
  const c = searchClauses(q);
  const facetAggs: Record<string, unknown> = {};
  for (const f of FACETS) {
    facetAggs[`facet_${f}`] = {
      filter: bool(facetClausesExcept(c, f)),
      aggs: { values: { terms: { field: FACET_FIELD[f], size: FACET_SIZE, order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
    };
  }
  const selected = facetClausesExcept(c, null);
  return {
    // One extra hit tells whether another page exists without a second request.
    size: q.limit + 1,
    track_total_hits: false,
    _source: ['card'],
    query: bool([{ term: { docType: 'card' } }, ...c.always]),
    // Facet selections narrow the items but not the other facets' counts (disjunctive facets).
    ...(selected.length > 0 ? { post_filter: bool(selected) } : {}),
    // sortKey is unique per product, so it alone is a total order and the cursor (the same key
    // the offer-level search pages on).
    sort: [{ sortKey: { order: q.sort === 'name' ? 'asc' : 'desc' } }],
    ...(after === null ? {} : { search_after: [after] }),
    aggs: facetAggs,
  };
}

interface CardHit {
  _source: Pick<CardDoc, 'card'>;
  sort: [string];
}
interface CountBucket {
  key: string;
  doc_count: number;
}

/** Shapes the response of cardSearchBody() into the contract's items and facets. */
export function cardSearchPage(res: { hits: { hits: unknown[] }; aggregations?: Record<string, unknown> }, limit: number): UnpricedPage {
  const hits = res.hits.hits as CardHit[];
  const items = hits.slice(0, limit).map((h) => h._source.card);
  const facets = {} as Facets;
  for (const f of FACETS) {
    const fb = (res.aggregations![`facet_${f}`] as { values: { buckets: CountBucket[] } }).values.buckets;
    if (f === 'seller') {
      facets.seller = fb.map((b) => sellerFacetValue(b.key, b.doc_count));
    } else {
      facets[f] = fb.map((b) => ({ value: b.key, count: b.doc_count }));
    }
  }
  const nextAfter = hits.length > limit ? hits[limit - 1]!.sort[0] : null;
  return { items, facets, nextAfter };
}
