// The buyer API as the page calls it: the typed client (clients/typescript) on the page's own
// origin, each answer handed back with its `degraded` flag and response time, and failures as
// ApiFailure for the views' notices.
import type { CartLine, Facets, Offer, Product, SearchItem, Suggestions } from '../src/contract/buyer.js';
import { createBuyerClient, type BuyerClient } from '../clients/typescript/src/buyer.js';
import { ApiError } from '../clients/typescript/src/errors.js';
import { createTransport } from '../clients/typescript/src/transport.js';

export interface SearchData {
  items: SearchItem[];
  facets: Facets;
  nextCursor: string | null;
}
export interface ProductData {
  offers: Offer[];
  product: Product | null;
}
export interface LookupData {
  lines: CartLine[];
}
export type SuggestData = Suggestions;

export interface Answer<T> {
  data: T;
  degraded: boolean;
  /** From the request to the whole body received, as the page sees it (the API's share of a view's time). */
  ms: number;
}

/** An answer that is not a success: the API's error envelope, another HTTP failure, or no answer at all (status null). */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly code: string | null,
    readonly details: unknown = undefined,
  ) {
    super(message);
  }
}

export const isAbort = (err: unknown): boolean => err instanceof DOMException && err.name === 'AbortError';

// The page waits for a person: one quick retry of a refused or shed read, not the client's default three.
const options = { retry: { maxRetries: 1, maxRetryAfterMs: 5000 } };
const client: BuyerClient = createBuyerClient(options);
const transport = createTransport(options);

async function timed<T>(run: () => Promise<{ data: T; degraded: boolean }>): Promise<Answer<T>> {
  const started = performance.now();
  try {
    const { data, degraded } = await run();
    return { data, degraded, ms: performance.now() - started };
  } catch (err) {
    if (isAbort(err)) throw err;
    if (err instanceof ApiError) throw new ApiFailure(err.message, err.status, err.code, err.details);
    throw new ApiFailure('The marketplace could not be reached.', null, null);
  }
}

/**
 * A read of the buyer API by path (query string included) through the client's transport, for a
 * read the client has no method for yet. A string body is JSON text, as fetch takes it.
 * @public
 */
export function call<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal | null; headers?: unknown } = {}): Promise<Answer<T>> {
  const body = typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : init.body;
  const method = init.method === 'POST' ? 'POST' : 'GET';
  return timed(() => transport.request<T>({ method, path, body, signal: init.signal ?? undefined, retry: 'idempotent' }));
}

/** The page's query string as the client's parameters (a repeated key is a list). */
function params(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(query)) {
    const had = out[k];
    out[k] = had === undefined ? v : Array.isArray(had) ? [...had, v] : [had, v];
  }
  return out;
}

export const getSuggest = (query: string, signal?: AbortSignal) => call<SuggestData>(`/search/suggest${query}`, { signal });

const split = <T extends { degraded: boolean }>({ degraded, ...data }: T) => ({ data: data as Omit<T, 'degraded'>, degraded });

export const getSearch = (query: string, signal?: AbortSignal): Promise<Answer<SearchData>> =>
  timed(async () => split(await client.search(params(query), { signal })));

export const getProduct = (productId: string, query: string, signal?: AbortSignal): Promise<Answer<ProductData>> =>
  timed(async () => split(await client.product(productId, params(query), { signal })));

export const lookupLines = (lines: { sellerId: number; skuId: number }[], signal?: AbortSignal): Promise<Answer<LookupData>> =>
  timed(async () => split(await client.lookupLines(lines, { signal })));
