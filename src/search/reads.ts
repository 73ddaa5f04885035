import type { CartLine, LookupBody, Offer, Product, ProductQuery, SearchQuery, Suggestions, SuggestQuery } from '../contract/buyer.js';
import type { SearchPage } from './queries/search-result.js';

/** A product page: the product and one page of its offers. */
export interface ProductPage {
  offers: Offer[];
  product: Product | null;
}

/** The buyer reads, whichever store answers them (the index, or PostgreSQL in Degraded Mode). */
export interface BuyerReads {
  productPage(productId: number, q: ProductQuery): Promise<ProductPage>;
  /** `after` is the decoded cursor: the sort key of the last product already returned. */
  search(q: SearchQuery, after: string | null): Promise<SearchPage>;
  lookup(body: LookupBody): Promise<CartLine[]>;
  /** Completions of what a buyer types, and a correction when it lists nothing (docs/search-design.md, "Suggestions"). */
  suggest(q: SuggestQuery): Promise<Suggestions>;
}
