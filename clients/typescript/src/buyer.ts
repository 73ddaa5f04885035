// The buyer reads (no key): search and its cursor walk, a product's offers, the cart's line
// lookup in chunks of the contract's maximum, and search-box suggestions. Every answer carries
// `degraded`. This file and what it imports are the browser bundle's part of the client.
import { chunk } from './chunk.js';
import { createTransport, type CallOptions, type ClientOptions, type Transport } from './transport.js';
import type { Answer, CartLine, LinePair, ProductFilters, ProductResult, SearchItem, SearchParams, SearchResult } from './types.js';

/** The contract's maximum pairs per POST /lines/lookup. */
export const LOOKUP_MAX_PAIRS = 500;

export interface SuggestOptions extends CallOptions {
  limit?: number;
  category?: string;
  sellerCode?: string;
}
export interface SuggestResult {
  completions: { text: string; productCount: number }[];
  /** A spelling the index knows better ("did you mean"), or null. */
  correction: string | null;
}

export interface BuyerClient {
  search(params?: SearchParams, opts?: CallOptions): Promise<Answer<SearchResult>>;
  /** Every page of a search from `params.cursor` (or the first page) to the last, as answered. */
  searchPages(params?: SearchParams, opts?: CallOptions): AsyncIterableIterator<Answer<SearchResult>>;
  /** Every item of a search, following nextCursor to the end. */
  searchAll(params?: SearchParams, opts?: CallOptions): AsyncIterableIterator<SearchItem>;
  product(productId: number | string, filters?: ProductFilters, opts?: CallOptions): Promise<Answer<ProductResult>>;
  /** One line per pair, in the order asked, however many pairs (sent in chunks of 500). */
  lookupLines(pairs: readonly LinePair[], opts?: CallOptions): Promise<Answer<{ lines: CartLine[] }>>;
  suggest(q: string, opts?: SuggestOptions): Promise<Answer<SuggestResult>>;
}

const answer = <T>(e: { data: T; degraded: boolean }): Answer<T> => ({ ...e.data, degraded: e.degraded });

export function buyerClient(transport: Transport): BuyerClient {
  const client: BuyerClient = {
    async search(params = {}, opts = {}) {
      return answer(await transport.request<SearchResult>({ method: 'GET', path: '/search', query: params, retry: 'idempotent', ...opts }));
    },
    async *searchPages(params = {}, opts = {}) {
      let cursor = params.cursor;
      for (;;) {
        const page = await client.search({ ...params, cursor }, opts);
        yield page;
        if (page.nextCursor === null) return;
        cursor = page.nextCursor;
      }
    },
    async *searchAll(params = {}, opts = {}) {
      for await (const page of client.searchPages(params, opts)) yield* page.items;
    },
    async product(productId, filters = {}, opts = {}) {
      const path = `/products/${encodeURIComponent(String(productId))}`;
      return answer(await transport.request<ProductResult>({ method: 'GET', path, query: { ...filters }, retry: 'idempotent', ...opts }));
    },
    async lookupLines(pairs, opts = {}) {
      const lines: CartLine[] = [];
      let degraded = false;
      // One chunk after another: the answers concatenate in request order.
      for (const part of chunk(pairs, LOOKUP_MAX_PAIRS)) {
        const e = await transport.request<{ lines: CartLine[] }>({
          method: 'POST',
          path: '/lines/lookup',
          body: { lines: part },
          retry: 'idempotent',
          ...opts,
        });
        lines.push(...e.data.lines);
        degraded ||= e.degraded;
      }
      return { lines, degraded };
    },
    async suggest(q, { limit, category, sellerCode, ...opts } = {}) {
      const query = { q, limit, category, sellerCode };
      return answer(await transport.request<SuggestResult>({ method: 'GET', path: '/search/suggest', query, retry: 'idempotent', ...opts }));
    },
  };
  return client;
}

/** The buyer reads alone (what a storefront needs; no key). */
export const createBuyerClient = (options: ClientOptions = {}): BuyerClient => buyerClient(createTransport(options));
