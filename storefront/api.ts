// The buyer API as the page calls it: same origin, the contract's envelope, and the answer's
// `degraded` flag and response time handed back with the data.
import type { CartLine, Facets, Offer, Product, SearchItem, Suggestions } from '../src/contract/buyer.js';

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

async function call<T>(path: string, init: RequestInit): Promise<Answer<T>> {
  const started = performance.now();
  let res: Response;
  let text: string;
  try {
    res = await fetch(path, { ...init, headers: { Accept: 'application/json', ...init.headers } });
    text = await res.text();
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new ApiFailure('The marketplace could not be reached.', null, null);
  }
  const ms = performance.now() - started;
  let body: { success?: boolean; degraded?: boolean; data?: T; error?: { code: string; message: string; details?: unknown } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new ApiFailure(`The marketplace answered ${res.status} ${res.statusText}`.trim(), res.status, null);
  }
  if (!res.ok || body.success !== true) {
    const e = body.error;
    throw new ApiFailure(e?.message ?? `The marketplace answered ${res.status}`, res.status, e?.code ?? null, e?.details);
  }
  return { data: body.data as T, degraded: body.degraded === true, ms };
}

export const getSearch = (query: string, signal?: AbortSignal) => call<SearchData>(`/search${query}`, { signal });

export const getSuggest = (query: string, signal?: AbortSignal) => call<SuggestData>(`/search/suggest${query}`, { signal });

export const getProduct = (productId: string, query: string, signal?: AbortSignal) =>
  call<ProductData>(`/products/${encodeURIComponent(productId)}${query}`, { signal });

export const lookupLines = (lines: { sellerId: number; skuId: number }[], signal?: AbortSignal) =>
  call<LookupData>('/lines/lookup', { method: 'POST', body: JSON.stringify({ lines }), headers: { 'Content-Type': 'application/json' }, signal });
