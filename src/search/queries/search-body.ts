import { FACETS, type FacetName, type SearchQuery } from '../../contract/buyer.js';
import { bool, facetClausesExcept, searchClauses } from './filters.js';

// GET /search as one Elasticsearch request over offer documents (docs/search-design.md):
// - results: a composite aggregation on the product sort key groups matching offers into products
//   in name order; its after_key is the cursor, so pages never skip or repeat a product.
// - one filter+terms aggregation per facet, each filtered by every selection except its own
//   (disjunctive), counting distinct products with a cardinality sub-aggregation.

export const FACET_FIELD: Record<FacetName, string> = {
  category: 'category',
  set: 'set',
  rarity: 'rarity',
  condition: 'condition',
  language: 'language',
  finish: 'finish',
  collectorNumber: 'collectorNumber',
  seller: 'sellerFacet',
};

export const FACET_SIZE = 100;
// HyperLogLog++ counts exactly (linear counting) below its precision threshold and within about 1%
// above it; memory grows with the threshold for every bucket (a high one under each facet bucket
// tripped a small node's request breaker on the landing search: BENCHMARKS.md, "Degraded Mode").
// Facet values with more than this many products get an approximate count (docs/search-design.md).
const FACET_PRECISION = 3_000;
// Distinct stores per product: a handful, so a small threshold stays exact.
const STORE_PRECISION = 200;

export function searchBody(q: SearchQuery, after: string | null): Record<string, unknown> {
  const c = searchClauses(q);
  const facetAggs: Record<string, unknown> = {};
  for (const f of FACETS) {
    facetAggs[`facet_${f}`] = {
      filter: bool(facetClausesExcept(c, f)),
      aggs: {
        values: {
          terms: { field: FACET_FIELD[f], size: FACET_SIZE, order: [{ products: 'desc' }, { _key: 'asc' }] },
          aggs: { products: { cardinality: { field: 'productId', precision_threshold: FACET_PRECISION } } },
        },
      },
    };
  }
  return {
    size: 0,
    track_total_hits: false,
    query: bool([...c.base, ...c.always]),
    aggs: {
      results: {
        filter: bool(facetClausesExcept(c, null)),
        aggs: {
          products: {
            composite: {
              // One extra bucket tells whether another page exists without a second request.
              size: q.limit + 1,
              sources: [{ key: { terms: { field: 'sortKey', order: q.sort === 'name' ? 'asc' : 'desc' } } }],
              ...(after === null ? {} : { after: { key: after } }),
            },
            aggs: {
              fromPrice: { min: { field: 'price' } },
              sellerCount: { cardinality: { field: 'storeKey', precision_threshold: STORE_PRECISION } },
              sealed: { max: { field: 'isSealed' } },
              native: { filter: { term: { lane: 'native' } } },
              top: { top_hits: { size: 1, _source: ['item'] } },
            },
          },
        },
      },
      ...facetAggs,
    },
  };
}
