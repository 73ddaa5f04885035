// One HTTP exchange with the API, fetch only (Node 20+ and browsers): the key and version
// headers, the envelope unwrapped, failures as typed errors, retries where a retry is safe, and
// one deadline and the caller's AbortSignal over the whole call (retries and waits included).
import { API_VERSION } from './generated/openapi.js';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay, type RetryPolicy } from './backoff.js';
import { ApiError, ConnectionError, TimeoutError } from './errors.js';

export interface ClientOptions {
  /** The API's address, e.g. https://api.example.com; '' (the default) is the page's own origin. */
  baseUrl?: string;
  /** A seller's key (mp_{sellerCode}_{hex}); the buyer reads need none. */
  apiKey?: string;
  /** Sent as X-Service-Api-Version; defaults to the version the client was generated from. */
  apiVersion?: string;
  /** The deadline of one call, retries included; default 30 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Another fetch (a test's, a proxy's); defaults to the global one. */
  fetch?: typeof fetch;
}

/** Per call: the caller's AbortSignal and a deadline of its own. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Which failures may be retried. `idempotent`: reads and the writes the contract makes idempotent
 * (desired-state listing writes, a repeated fulfillment status, a whole-order cancel): 429, 503 and
 * no answer. `refused-only`: other writes: only a 429, which the API answers before doing anything.
 */
export type RetrySafety = 'idempotent' | 'refused-only';

export interface RequestSpec extends CallOptions {
  method: 'GET' | 'POST' | 'PATCH';
  /** The path below baseUrl, query string included or not. */
  path: string;
  query?: Record<string, string | number | boolean | readonly (string | number)[] | null | undefined>;
  body?: unknown;
  retry: RetrySafety;
}

export interface Envelope<T> {
  data: T;
  degraded: boolean;
  status: number;
}

export interface Transport {
  request<T>(spec: RequestSpec): Promise<Envelope<T>>;
}

const RETRIED_STATUSES = new Set([429, 503]);

export function queryString(query: RequestSpec['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value as readonly (string | number)[]) params.append(name, String(v));
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

const isAbort = (err: unknown): boolean => err instanceof Error && err.name === 'AbortError';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      done();
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function createTransport(options: ClientOptions = {}): Transport {
  const base = (options.baseUrl ?? '').replace(/\/+$/, '');
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const headers: Record<string, string> = { Accept: 'application/json', 'X-Service-Api-Version': options.apiVersion ?? API_VERSION };
  if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;

  async function attempt<T>(spec: RequestSpec, url: string, signal: AbortSignal): Promise<Envelope<T>> {
    const init: RequestInit = { method: spec.method, headers, signal };
    if (spec.body !== undefined) {
      init.headers = { ...headers, 'Content-Type': 'application/json' };
      init.body = JSON.stringify(spec.body);
    }
    const res = await doFetch(url, init);
    const text = await res.text();
    type Parsed = { success?: boolean; degraded?: boolean; data?: T; error?: { code?: string; message?: string; details?: unknown } } | null;
    let body: Parsed = null;
    try {
      body = JSON.parse(text) as Parsed;
    } catch {
      // Not an envelope (a proxy's page, an empty body): reported below with the status alone.
    }
    if (res.ok && body?.success === true) return { data: body.data as T, degraded: body.degraded === true, status: res.status };
    const e = body?.error;
    throw new ApiError(
      e?.message ?? `the API answered ${res.status} ${res.statusText}`.trim(),
      res.status,
      e?.code ?? null,
      e?.details,
      parseRetryAfter(res.headers.get('Retry-After')),
    );
  }

  return {
    async request<T>(spec: RequestSpec): Promise<Envelope<T>> {
      const url = `${base}${spec.path}${queryString(spec.query)}`;
      const timeoutMs = spec.timeoutMs ?? options.timeoutMs ?? 30_000;
      // One controller for the whole call: the caller's abort and the deadline both end it.
      const controller = new AbortController();
      const timeout = new TimeoutError(timeoutMs);
      const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
      const onAbort = () => controller.abort(spec.signal!.reason);
      if (spec.signal?.aborted) onAbort();
      else spec.signal?.addEventListener('abort', onAbort, { once: true });
      try {
        for (let retry = 0; ; retry++) {
          let failure: unknown;
          try {
            return await attempt<T>(spec, url, controller.signal);
          } catch (err) {
            failure = err;
          }
          if (controller.signal.aborted) throw controller.signal.reason;
          const retryable =
            failure instanceof ApiError
              ? failure.status === 429 || (RETRIED_STATUSES.has(failure.status) && spec.retry === 'idempotent')
              : spec.retry === 'idempotent' && !isAbort(failure);
          const err = failure instanceof ApiError ? failure : new ConnectionError(`no answer from ${spec.method} ${spec.path}`, failure);
          if (!retryable || retry >= policy.maxRetries) throw err;
          const delay = retryDelay(retry + 1, err instanceof ApiError ? err.retryAfterMs : null, policy);
          if (delay === null) throw err;
          await sleep(delay, controller.signal);
        }
      } finally {
        clearTimeout(timer);
        spec.signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}
