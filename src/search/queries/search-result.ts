import type { Facets, SearchItem } from '../../contract/buyer.js';

export interface SearchPage {
  items: SearchItem[];
  facets: Facets;
  /** Sort key of the last item when another page exists. */
  nextAfter: string | null;
}

/** A seller facet bucket: its key is sellerCode + U+0000 + storeName (ties order by sellerCode). */
export function sellerFacetValue(key: string, count: number): Facets['seller'][number] {
  const cut = key.indexOf('\u0000');
  return { sellerCode: key.slice(0, cut), storeName: key.slice(cut + 1), count };
}
