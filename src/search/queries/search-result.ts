import type { Facets, SearchItem } from '../../contract/buyer.js';
import type { CardItem } from '../documents/model.js';

export interface SearchPage {
  items: SearchItem[];
  facets: Facets;
  /** Sort key of the last item when another page exists. */
  nextAfter: string | null;
}

/** A page of cards before their prices (from-prices.ts adds them): items without fromPrice. */
export interface UnpricedPage extends Omit<SearchPage, 'items'> {
  items: CardItem[];
}

/** A seller facet bucket: its key is sellerCode + U+0000 + storeName (ties order by sellerCode). */
export function sellerFacetValue(key: string, count: number): Facets['seller'][number] {
  const cut = key.indexOf('\u0000');
  return { sellerCode: key.slice(0, cut), storeName: key.slice(cut + 1), count };
}
