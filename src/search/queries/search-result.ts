import { FACETS, type Facets, type SearchItem } from '../../contract/buyer.js';
import { searchItem, type ProductFields } from '../documents.js';

interface ProductBucket {
  key: { key: string };
  fromPrice: { value: number | null };
  sellerCount: { value: number };
  sealed: { value: number | null };
  native: { doc_count: number };
  top: { hits: { hits: { _source?: { item: ProductFields['item'] } }[] } };
}
interface FacetBucket {
  key: string;
  products: { value: number };
}

export interface SearchPage {
  items: SearchItem[];
  facets: Facets;
  /** Sort key of the last item when another page exists. */
  nextAfter: string | null;
}

/** Shapes the aggregation response of searchBody() into the contract's items and facets. */
export function searchPage(aggs: Record<string, unknown>, limit: number): SearchPage {
  const results = aggs.results as { products: { buckets: ProductBucket[] } };
  const buckets = results.products.buckets;
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
    const fb = (aggs[`facet_${f}`] as { values: { buckets: FacetBucket[] } }).values.buckets;
    if (f === 'seller') {
      facets.seller = fb.map((b) => sellerFacetValue(b.key, b.products.value));
    } else {
      facets[f] = fb.map((b) => ({ value: b.key, count: b.products.value }));
    }
  }
  const nextAfter = buckets.length > limit ? buckets[limit - 1]!.key.key : null;
  return { items, facets, nextAfter };
}

/** A seller facet bucket: its key is sellerCode + U+0000 + storeName (ties order by sellerCode). */
export function sellerFacetValue(key: string, count: number): Facets['seller'][number] {
  const cut = key.indexOf('\u0000');
  return { sellerCode: key.slice(0, cut), storeName: key.slice(cut + 1), count };
}
