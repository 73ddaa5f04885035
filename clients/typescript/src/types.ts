// Names for the generated operation types: what each method sends and gets back.
import type { Operations } from './generated/openapi.js';

export type OperationKey = keyof Operations;
/** The `data` of an operation's success envelope. */
export type Data<K extends OperationKey> = Operations[K]['response']['data'];
export type Query<K extends OperationKey> = Operations[K]['query'];
export type Body<K extends OperationKey> = Operations[K]['body'];
type Item<T> = T extends readonly (infer I)[] ? I : never;

export type SearchParams = Query<'GET /search'>;
export type SearchResult = Data<'GET /search'>;
export type SearchItem = Item<SearchResult['items']>;
export type Facets = SearchResult['facets'];
export type ProductResult = Data<'GET /products/{productId}'>;
export type Offer = Item<ProductResult['offers']>;
export type Product = NonNullable<ProductResult['product']>;
/** The product page's filters (condition, language, finish), page size and offset. */
export interface ProductFilters {
  condition?: string | string[];
  language?: string | string[];
  finish?: string | string[];
  limit?: number;
  offset?: number;
}
export type LinePair = Item<Body<'POST /lines/lookup'>['lines']>;
export type CartLine = Item<Data<'POST /lines/lookup'>['lines']>;

/** The `degraded` flag of a buyer read: true when Degraded Mode answered (prices and stock may be briefly stale). */
export type Answer<T> = T & { degraded: boolean };

export type BulkItem = Item<Body<'POST /listings/bulk'>['items']>;
/** A listing write: a bulk item, or an upsert without `op`. */
export type ListingWrite = BulkItem | Omit<Extract<BulkItem, { op: 'upsert' }>, 'op'>;
export type ListingWriteResult = Item<Data<'POST /listings/bulk'>['results']>;
export type Listing = Item<Data<'GET /listings'>['items']>;
export interface ExportParams {
  updatedSince?: string;
  includeDeleted?: boolean;
  /** Page size, 1 to 1000. */
  limit?: number;
}
export type StoreStatus = Data<'GET /me'>;
export type Order = Data<'GET /orders/{orderId}'>;
export type FulfillmentBody = Body<'PATCH /orders/{orderId}/fulfillment'>;
export type CancelBody = Body<'POST /orders/{orderId}/cancel'>;
