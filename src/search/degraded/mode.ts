import type { Client } from '@elastic/elasticsearch';
import type { Infra } from '../../config/infra.js';
import type { Logger } from '../../lib/logger.js';
import { failoverRetries } from '../../es/client.js';
import { DEFAULT_PG_READS, type PgReadsOptions } from '../pg-reads.js';
import { CircuitBreaker, DEFAULT_BREAKER, type BreakerOptions, type BreakerState, type Observation, type Permit } from './breaker.js';
import { DEFAULT_CACHE, LastGoodCache, type LastGoodCacheOptions } from './cache.js';
import { DEFAULT_WATCH, watchCluster, type ClusterView, type ClusterWatch, type ClusterWatchOptions } from './cluster-watch.js';
import { ConcurrencyLimiter, DEFAULT_LIMITER, type LimiterOptions } from './limiter.js';
import { renderPrometheus } from '../../lib/prometheus.js';
import { emptyDegradedMetrics, type DegradedMetrics } from './metrics.js';

// One Degraded Mode state per process (built by createServices): the breaker, the cluster watcher
// feeding it, the last-good cache, the fallback limiter and the counters. The buyer service and
// the health routes are handed the same object, so /readyz and /metrics report the same state
// the buyer reads act on.

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
   * PostgreSQL answers are kept this briefly (and identical concurrent misses share one query),
   * so a flood of the same uncached request costs the database one query every few seconds.
   */
  fallbackMemo: LastGoodCacheOptions;
  limiter: LimiterOptions;
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

/** Buyer queries get at most 1.5 s (or ES_REQUEST_TIMEOUT_MS when that is lower). */
export function defaultDegradedOptions(esRequestTimeoutMs: number): DegradedOptions {
  return {
    breaker: DEFAULT_BREAKER,
    watch: { ...DEFAULT_WATCH, enabled: true },
    cache: DEFAULT_CACHE,
    warmCache: DEFAULT_WARM_CACHE,
    fallbackMemo: { maxBytes: 16 * 1024 * 1024, maxEntries: 5000, ttlMs: 5000 },
    limiter: DEFAULT_LIMITER,
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
  fallbackMemo?: Partial<LastGoodCacheOptions>;
  limiter?: Partial<LimiterOptions>;
  pg?: Partial<PgReadsOptions>;
  queryTimeoutMs?: number;
  retryAfterSeconds?: number;
}

export interface DegradedMode {
  readonly options: DegradedOptions;
  readonly breaker: CircuitBreaker;
  readonly cache: LastGoodCache;
  /** The warm set's reserved part of the last-good cache (same keys as live requests). */
  readonly warmCache: LastGoodCache;
  readonly fallbackMemo: LastGoodCache;
  /** PostgreSQL reads in flight, by request key: identical concurrent misses wait for the same one. */
  readonly fallbackInFlight: Map<string, Promise<unknown>>;
  readonly limiter: ConcurrencyLimiter;
  readonly metrics: DegradedMetrics;
  /** The client buyer queries use: short timeout, no retry. */
  readonly searchClient: Client;
  readonly watch: ClusterWatch | null;
  /** Degraded Mode is on (the breaker is open or half-open). */
  readonly active: boolean;
  state(): BreakerState;
  cluster(): ClusterView;
  tryAcquire(): Permit | null;
  succeeded(permit: Permit): void;
  failed(permit: Permit, reason: string): void;
  /** Prometheus text of the mode and its counters. */
  prometheus(): string;
  stop(): void;
}

export function createDegradedMode(deps: Pick<Infra, 'es' | 'index' | 'logger' | 'env'>, overrides: DegradedOverrides = {}): DegradedMode {
  const base = defaultDegradedOptions(deps.env.ES_REQUEST_TIMEOUT_MS);
  const options: DegradedOptions = {
    breaker: { ...base.breaker, ...overrides.breaker },
    watch: { ...base.watch, ...overrides.watch },
    cache: { ...base.cache, ...overrides.cache },
    warmCache: { ...base.warmCache, maxBytes: deps.env.DEGRADED_WARM_CACHE_MB * 1024 * 1024, ...overrides.warmCache },
    fallbackMemo: { ...base.fallbackMemo, ...overrides.fallbackMemo },
    limiter: { ...base.limiter, ...overrides.limiter },
    pg: { ...base.pg, ...overrides.pg },
    queryTimeoutMs: overrides.queryTimeoutMs ?? base.queryTimeoutMs,
    retryAfterSeconds: overrides.retryAfterSeconds ?? base.retryAfterSeconds,
  };
  const logger: Logger = deps.logger.child({ component: 'degraded-mode' });
  const breaker = new CircuitBreaker(options.breaker);
  const metrics = emptyDegradedMetrics();
  const cache = new LastGoodCache(options.cache);
  const warmCache = new LastGoodCache(options.warmCache);
  const fallbackMemo = new LastGoodCache(options.fallbackMemo);
  const limiter = new ConcurrencyLimiter(options.limiter);
  // No retry on one node (a dead cluster must not cost a buyer twice the wait); on a cluster, a
  // refused connection moves on to the next node instead of failing the read (failoverRetries).
  const searchClient = deps.es.child({ requestTimeout: options.queryTimeoutMs, maxRetries: failoverRetries(deps.es) });

  let logged: BreakerState = 'closed';
  let lastOpens = 0;
  const note = () => {
    const snap = breaker.snapshot();
    metrics.opens += snap.opens - lastOpens;
    lastOpens = snap.opens;
    if (snap.state === logged) return;
    if (snap.state === 'open') logger.warn({ reason: snap.reason }, 'Degraded Mode on: search cluster unhealthy');
    else if (snap.state === 'closed') logger.info('Degraded Mode off: search cluster answers well again');
    else logger.info('Degraded Mode: probing the search cluster');
    logged = snap.state;
  };

  const watch = options.watch.enabled
    ? watchCluster(
        deps.es.child({ maxRetries: 0 }),
        deps.index.alias,
        (o: Observation) => {
          breaker.observe(o);
          note();
        },
        options.watch,
      )
    : null;

  return {
    options,
    breaker,
    cache,
    warmCache,
    fallbackMemo,
    fallbackInFlight: new Map(),
    limiter,
    metrics,
    searchClient,
    watch,
    get active() {
      return breaker.degraded;
    },
    state: () => breaker.state,
    cluster: () => watch?.view() ?? { status: 'unknown', detail: 'watcher disabled', checkedAt: null, latencyMs: null },
    tryAcquire: () => {
      const p = breaker.tryAcquire();
      note();
      return p;
    },
    succeeded: (permit) => {
      breaker.success(permit);
      note();
    },
    failed: (permit, reason) => {
      breaker.failure(permit, reason);
      note();
    },
    prometheus: () => {
      const state = breaker.state;
      const view = watch?.view();
      return renderPrometheus([
        { name: 'degraded_mode', help: 'Degraded Mode is on (1) or off (0)', type: 'gauge', value: state === 'closed' ? 0 : 1 },
        ...(['closed', 'open', 'half-open'] as const).map((s) => ({
          name: 'search_breaker_state',
          help: 'Circuit breaker state in front of the search cluster',
          type: 'gauge' as const,
          value: s === state ? 1 : 0,
          labels: { state: s },
        })),
        ...(['green', 'yellow', 'red', 'unreachable', 'probe-failed', 'unknown'] as const).map((s) => ({
          name: 'search_cluster_status',
          help: 'Last status the cluster watcher saw',
          type: 'gauge' as const,
          value: (view?.status ?? 'unknown') === s ? 1 : 0,
          labels: { status: s },
        })),
        { name: 'search_breaker_opens_total', help: 'Times Degraded Mode was entered', type: 'counter', value: metrics.opens },
        { name: 'buyer_index_answers_total', help: 'Buyer reads answered from the index', type: 'counter', value: metrics.indexAnswers },
        { name: 'buyer_index_failures_total', help: 'Buyer index queries that failed or timed out', type: 'counter', value: metrics.indexFailures },
        { name: 'degraded_cache_hits_total', help: 'Buyer reads answered from the last-good cache', type: 'counter', value: metrics.cacheHits },
        { name: 'degraded_fallbacks_total', help: 'Buyer reads answered from PostgreSQL', type: 'counter', value: metrics.fallbacks },
        { name: 'degraded_fallback_queries_total', help: 'PostgreSQL fallback reads run', type: 'counter', value: metrics.fallbackQueries },
        { name: 'degraded_fallback_failures_total', help: 'PostgreSQL fallback reads that failed', type: 'counter', value: metrics.fallbackFailures },
        { name: 'degraded_unavailable_total', help: 'Buyer reads answered 503 SERVICE_UNAVAILABLE', type: 'counter', value: metrics.unavailable },
        { name: 'degraded_cache_entries', help: 'Entries in the last-good cache', type: 'gauge', value: cache.entries },
        { name: 'degraded_cache_bytes', help: 'Size of the last-good cache (JSON characters)', type: 'gauge', value: cache.bytes },
        { name: 'degraded_warm_cache_entries', help: "Entries in the warm set's part of the last-good cache", type: 'gauge', value: warmCache.entries },
        {
          name: 'degraded_warm_cache_bytes',
          help: "Size of the warm set's part of the last-good cache (JSON characters)",
          type: 'gauge',
          value: warmCache.bytes,
        },
        { name: 'degraded_warm_passes_total', help: 'Warm passes run to the end', type: 'counter', value: metrics.warmPasses },
        { name: 'degraded_warm_requests_total', help: 'Warm requests answered by the index', type: 'counter', value: metrics.warmRequests },
        { name: 'degraded_warm_failures_total', help: 'Warm requests that failed', type: 'counter', value: metrics.warmFailures },
        { name: 'degraded_fallback_running', help: 'PostgreSQL fallback reads running', type: 'gauge', value: limiter.running },
        { name: 'degraded_fallback_waiting', help: 'PostgreSQL fallback reads waiting for a slot', type: 'gauge', value: limiter.waiting },
      ]);
    },
    stop: () => watch?.stop(),
  };
}
