// The offer-level search path before issue 14 (a composite aggregation over offer documents, facet
// counts from `cardinality`), kept only so the comparison scripts (compare.ts, issue-table.ts,
// ../search-paths.ts) can still measure it against the card model: offer documents are still
// indexed with the same fields. Nothing under src/ uses it (src/search/queries/offer-search.ts
// answers those searches from cards now).
import { FACETS, type FacetName, type Facets, type SearchItem, type SearchQuery } from '../../src/contract/buyer.js';
import { searchItem } from '../../src/search/documents/builders.js';
import type { ProductFields } from '../../src/search/documents/model.js';
import { anyOf, bool, FACET_FIELD, FACET_SIZE, shownOffers, type Clause } from '../../src/search/queries/filters.js';
import { sellerFacetValue, type SearchPage } from '../../src/search/queries/search-result.js';
import { terms } from '../../src/search/text.js';

const FACET_PRECISION = 3_000;
const STORE_PRECISION = 200;

function clauses(q: SearchQuery) {
  const always: Clause[] = terms(q.keyword ?? '').map((t) => ({ term: { nameTerms: t } }));
  if (q.checkoutMode !== 'any') always.push({ term: { checkoutMode: q.checkoutMode } });
  const byFacet: Partial<Record<FacetName, Clause>> = {};
  if (q.category !== undefined) byFacet.category = anyOf('category', [q.category]);
  if (q.set !== undefined) byFacet.set = anyOf('set', [q.set]);
  if (q.rarity !== undefined) byFacet.rarity = anyOf('rarity', [q.rarity]);
  if (q.collectorNumber) byFacet.collectorNumber = anyOf('collectorNumber', q.collectorNumber);
  if (q.condition) byFacet.condition = anyOf('condition', q.condition);
  if (q.language) byFacet.language = anyOf('language', q.language);
  if (q.finish) byFacet.finish = anyOf('finish', q.finish);
  if (q.sellerCode !== undefined) byFacet.seller = anyOf('sellerCode', [q.sellerCode]);
  const except = (f: FacetName | null) => FACETS.filter((x) => x !== f && byFacet[x] !== undefined).map((x) => byFacet[x]!);
  return { always, except };
}

export function searchBody(q: SearchQuery, after: string | null): Record<string, unknown> {
  const c = clauses(q);
  const facetAggs: Record<string, unknown> = {};
  for (const f of FACETS) {
    facetAggs[`facet_${f}`] = {
      filter: bool(c.except(f)),
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
    query: bool([...shownOffers, ...c.always]),
    aggs: {
      results: {
        filter: bool(c.except(null)),
        aggs: {
          products: {
            composite: {
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

interface ProductBucket {
  key: { key: string };
  fromPrice: { value: number | null };
  sellerCount: { value: number };
  sealed: { value: number | null };
  native: { doc_count: number };
  top: { hits: { hits: { _source?: { item: ProductFields['item'] } }[] } };
}

export function searchPage(aggs: Record<string, unknown>, limit: number): SearchPage {
  const buckets = (aggs.results as { products: { buckets: ProductBucket[] } }).products.buckets;
  const items = buckets.slice(0, limit).map((b): SearchItem =>
    searchItem(b.top.hits.hits[0]!._source!.item, {
      isSealed: b.sealed.value === 1,
      fromPrice: b.fromPrice.value ?? 0,
      sellerCount: b.sellerCount.value,
      hasNative: b.native.doc_count > 0,
    }),
  );
  const facets = {} as Facets;
  for (const f of FACETS) {
    const fb = (aggs[`facet_${f}`] as { values: { buckets: { key: string; products: { value: number } }[] } }).values.buckets;
    if (f === 'seller') facets.seller = fb.map((b) => sellerFacetValue(b.key, b.products.value));
    else facets[f] = fb.map((b) => ({ value: b.key, count: b.products.value }));
  }
  return { items, facets, nextAfter: buckets.length > limit ? buckets[limit - 1]!.key.key : null };
}
