import type { Env } from '../../config/env.js';
import { DEFAULT_PG_READS, type PgReadsOptions } from '../pg-reads.js';
import { DEFAULT_BREAKER, type BreakerOptions } from './breaker.js';
import { DEFAULT_CACHE, type LastGoodCacheOptions } from './cache.js';
import { DEFAULT_WATCH, type ClusterWatchOptions } from './cluster-watch.js';
import { DEFAULT_LIMITER, type LimiterOptions } from './limiter.js';

// The settings of Degraded Mode: defaults, and a test's or bench's overrides merged over them.

export interface DegradedOptions {
  breaker: BreakerOptions;
  watch: ClusterWatchOptions & { enabled: boolean };
  cache: LastGoodCacheOptions;
  /**
   * The part of the last-good cache reserved for the warm set (src/search/degraded/warmer.ts):
   * live traffic (product pages, lookups, deep pages) cannot evict it, and a live answer to a
   * warm request refreshes the entry here.
   */
  warmCache: LastGoodCacheOptions;
  /**
   * The suggestions' own part of the last-good cache: typing asks for a new prefix at every
   * keystroke, and those many small answers must not evict the searches' answers (nor the other way).
   */
  suggestCache: LastGoodCacheOptions;
  /**
   * PostgreSQL answers are kept this briefly (and identical concurrent misses share one query),
   * so a flood of the same uncached request costs the database one query every few seconds.
   */
  fallbackMemo: LastGoodCacheOptions;
  limiter: LimiterOptions;
  /**
   * Admission of searches to the index: at most `max` in flight per process; beyond that a search
   * waits at most `maxWaitMs`, then is answered without the index (the last-good answer, else 503
   * with Retry-After 1), so overload queues neither in the cluster nor into timeouts; once
   * congested, the newest waiter goes first (limiter.ts).
   */
  admission: LimiterOptions;
  pg: PgReadsOptions;
  /** Timeout of one buyer query to the index: a hung cluster never hangs a buyer request. */
  queryTimeoutMs: number;
  /** Retry-After of a 503 answer. */
  retryAfterSeconds: number;
}

/**
 * At most 804 warm requests (2 landing grids, 100 values of each of 8 facets, 2 checkout modes);
 * an answer of 24 items and 8 facets of up to 100 values is 20-40 kB of JSON.
 */
export const DEFAULT_WARM_CACHE: LastGoodCacheOptions = { maxBytes: 32 * 1024 * 1024, maxEntries: 1000 };

/** A suggestion answer and its key are 0.2-1.5 kB of JSON: 20,000 of them in at most 16 MB. */
export const DEFAULT_SUGGEST_CACHE: LastGoodCacheOptions = { maxBytes: 16 * 1024 * 1024, maxEntries: 20_000 };

/** Buyer queries get at most 1.5 s (or ES_REQUEST_TIMEOUT_MS when that is lower). */
export function defaultDegradedOptions(esRequestTimeoutMs: number): DegradedOptions {
  return {
    breaker: DEFAULT_BREAKER,
    watch: { ...DEFAULT_WATCH, enabled: true },
    cache: DEFAULT_CACHE,
    warmCache: DEFAULT_WARM_CACHE,
    suggestCache: DEFAULT_SUGGEST_CACHE,
    fallbackMemo: { maxBytes: 16 * 1024 * 1024, maxEntries: 5000, ttlMs: 5000 },
    limiter: DEFAULT_LIMITER,
    admission: DEFAULT_ADMISSION,
    pg: DEFAULT_PG_READS,
    queryTimeoutMs: Math.min(1500, esRequestTimeoutMs),
    retryAfterSeconds: 5,
  };
}

export interface DegradedOverrides {
  breaker?: Partial<BreakerOptions>;
  watch?: Partial<DegradedOptions['watch']>;
  cache?: Partial<LastGoodCacheOptions>;
  warmCache?: Partial<LastGoodCacheOptions>;
  suggestCache?: Partial<LastGoodCacheOptions>;
  fallbackMemo?: Partial<LastGoodCacheOptions>;
  limiter?: Partial<LimiterOptions>;
  admission?: Partial<LimiterOptions>;
  pg?: Partial<PgReadsOptions>;
  queryTimeoutMs?: number;
  retryAfterSeconds?: number;
}

export const DEFAULT_ADMISSION: LimiterOptions = { max: 8, maxWaitMs: 250, maxQueue: 1000, name: 'search', order: 'adaptive' };

/** The defaults, the environment's warm cache size and search admission, then the overrides. */
export function degradedOptions(
  env: Pick<Env, 'ES_REQUEST_TIMEOUT_MS' | 'DEGRADED_WARM_CACHE_MB' | 'SEARCH_MAX_IN_FLIGHT' | 'SEARCH_MAX_WAIT_MS' | 'SEARCH_QUEUE_ORDER'>,
  overrides: DegradedOverrides = {},
): DegradedOptions {
  const base = defaultDegradedOptions(env.ES_REQUEST_TIMEOUT_MS);
  return {
    breaker: { ...base.breaker, ...overrides.breaker },
    watch: { ...base.watch, ...overrides.watch },
    cache: { ...base.cache, ...overrides.cache },
    warmCache: { ...base.warmCache, maxBytes: env.DEGRADED_WARM_CACHE_MB * 1024 * 1024, ...overrides.warmCache },
    suggestCache: { ...base.suggestCache, ...overrides.suggestCache },
    fallbackMemo: { ...base.fallbackMemo, ...overrides.fallbackMemo },
    limiter: { ...base.limiter, ...overrides.limiter },
    admission: {
      ...base.admission,
      max: env.SEARCH_MAX_IN_FLIGHT,
      maxWaitMs: env.SEARCH_MAX_WAIT_MS,
      order: env.SEARCH_QUEUE_ORDER,
      ...overrides.admission,
    },
    pg: { ...base.pg, ...overrides.pg },
    queryTimeoutMs: overrides.queryTimeoutMs ?? base.queryTimeoutMs,
    retryAfterSeconds: overrides.retryAfterSeconds ?? base.retryAfterSeconds,
  };
}
