import type { CartLine, LookupBody, Offer, Product, ProductQuery, SearchQuery } from '../contract/buyer.js';
import type { SearchPage } from './queries/search-result.js';

/** The three buyer reads, whichever store answers them (the index, or PostgreSQL in Degraded Mode). */
export interface BuyerReads {
  productPage(productId: number, q: ProductQuery): Promise<{ offers: Offer[]; product: Product | null }>;
  /** `after` is the decoded cursor: the sort key of the last product already returned. */
  search(q: SearchQuery, after: string | null): Promise<SearchPage>;
  lookup(body: LookupBody): Promise<CartLine[]>;
}
