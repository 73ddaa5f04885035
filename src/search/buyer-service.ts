import type { Infra } from '../config/infra.js';
import { DomainError } from '../contract/errors.js';
import { requestKey } from './degraded/cache.js';
import type { DegradedMode } from './degraded/mode.js';
import { indexReads } from './index-reads.js';
import { pgReads } from './pg-reads.js';
import type { BuyerReads } from './reads.js';

export interface Answer<T> {
  readonly data: T;
  readonly degraded: boolean;
  /**
   * `JSON.stringify(data)`, computed at most once: a good index answer's is the text the
   * last-good cache keeps, a cached answer's the text it kept (its `data` is only parsed when
   * read). Routes that send `data` as it is build their response from this text.
   */
  json(): string;
}

/** An answer from its data, its JSON text, or both (at least one). */
class JsonAnswer<T> implements Answer<T> {
  #data: T | undefined;
  #hasData: boolean;
  #json: string | undefined;

  constructor(
    readonly degraded: boolean,
    from: { data: T; json?: string } | { json: string },
  ) {
    this.#hasData = 'data' in from;
    this.#data = 'data' in from ? from.data : undefined;
    this.#json = from.json;
  }

  get data(): T {
    if (!this.#hasData) {
      this.#data = JSON.parse(this.#json!) as T;
      this.#hasData = true;
    }
    return this.#data as T;
  }

  json(): string {
    if (this.#json === undefined) this.#json = JSON.stringify(this.#data);
    return this.#json;
  }
}

type Method = keyof BuyerReads;
type Result<M extends Method> = Awaited<ReturnType<BuyerReads[M]>>;

export interface BuyerService {
  call<M extends Method>(method: M, ...args: Parameters<BuyerReads[M]>): Promise<Answer<Result<M>>>;
  readonly mode: DegradedMode;
}

export interface BuyerServiceOptions {
  /** Replaces the index reads (tests). */
  primary?: BuyerReads;
  /** Replaces the PostgreSQL fallback (tests). */
  fallback?: BuyerReads;
}

class QueryTimeout extends Error {
  constructor(ms: number) {
    super(`index query exceeded ${ms} ms`);
    this.name = 'QueryTimeout';
  }
}

/** Guards against anything that outlives the client's own request timeout. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  // One promise and one timer per read (a race plus finally made four promises).
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new QueryTimeout(ms)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

function reasonOf(err: unknown): string {
  const e = err as { name?: string; message?: string; meta?: { body?: { error?: { type?: string } } } };
  return e.meta?.body?.error?.type ?? `${e.name ?? 'Error'}: ${e.message ?? String(err)}`;
}

/**
 * The buyer reads with Degraded Mode (DECISIONS.md):
 *   breaker closed (or a half-open probe) → the index; a good answer fills the last-good cache;
 *   index error or timeout, or breaker open → the last-good answer to the same normalized
 *   request (degraded) → PostgreSQL (degraded; bounded concurrency, identical concurrent misses
 *   share one query, its answer is reused for a few seconds) → 503 SERVICE_UNAVAILABLE with
 *   Retry-After.
 * A buyer read never turns into a bare 500 because the cluster is down.
 */
export function createBuyerService(deps: Pick<Infra, 'pool' | 'index' | 'logger'>, mode: DegradedMode, opts: BuyerServiceOptions = {}): BuyerService {
  const primary = opts.primary ?? indexReads(mode.searchClient, deps.index.alias);
  const fallback = opts.fallback ?? pgReads(deps.pool, mode.options.pg);
  const log = deps.logger.child({ component: 'buyer-service' });
  const guardMs = mode.options.queryTimeoutMs + 250;

  async function degradedAnswer<M extends Method>(method: M, key: string, args: Parameters<BuyerReads[M]>): Promise<Answer<Result<M>>> {
    // The warm part first: the warmer keeps it current, the general part may hold an older answer.
    const cached = mode.warmCache.getJson(key) ?? mode.cache.getJson(key);
    if (cached !== undefined) {
      mode.metrics.cacheHits += 1;
      return new JsonAnswer<Result<M>>(true, { json: cached });
    }
    try {
      const memo = mode.fallbackMemo.getJson(key);
      if (memo !== undefined) {
        mode.metrics.fallbacks += 1;
        return new JsonAnswer<Result<M>>(true, { json: memo });
      }
      let running = mode.fallbackInFlight.get(key) as Promise<{ data: Result<M>; json: string }> | undefined;
      if (!running) {
        const fn = fallback[method] as (...a: typeof args) => Promise<Result<M>>;
        running = mode.limiter
          .run(() => {
            mode.metrics.fallbackQueries += 1;
            return fn(...args);
          })
          .then((data) => {
            const json = JSON.stringify(data);
            mode.fallbackMemo.setJson(key, json);
            return { data, json };
          })
          .finally(() => mode.fallbackInFlight.delete(key));
        mode.fallbackInFlight.set(key, running);
      }
      const done = await running;
      mode.metrics.fallbacks += 1;
      return new JsonAnswer<Result<M>>(true, done);
    } catch (err) {
      if (err instanceof DomainError) throw err;
      mode.metrics.fallbackFailures += 1;
      mode.metrics.unavailable += 1;
      log.warn({ method, err: reasonOf(err) }, 'Degraded Mode: no cached answer and the PostgreSQL fallback failed');
      throw new DomainError('search-unavailable', 'Search is temporarily unavailable; please retry shortly', undefined, mode.options.retryAfterSeconds);
    }
  }

  return {
    mode,
    async call(method, ...args) {
      const key = requestKey(method, args);
      const permit = mode.tryAcquire();
      if (permit) {
        try {
          const fn = primary[method] as (...a: typeof args) => Promise<Result<typeof method>>;
          const data = await within(fn(...args), guardMs);
          mode.succeeded(permit);
          mode.metrics.indexAnswers += 1;
          // Serialized once: the cache keeps the text the response is then built from.
          const json = JSON.stringify(data);
          // A warm request's answer replaces the warm entry, where live traffic cannot evict it.
          (mode.warmCache.has(key) ? mode.warmCache : mode.cache).setJson(key, json);
          return new JsonAnswer(false, { data, json });
        } catch (err) {
          if (err instanceof DomainError) throw err;
          mode.failed(permit, reasonOf(err));
          mode.metrics.indexFailures += 1;
          log.warn({ method, err: reasonOf(err) }, 'index query failed; answering in Degraded Mode');
        }
      }
      return degradedAnswer(method, key, args);
    },
  };
}
