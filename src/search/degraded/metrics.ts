import { Counter, type Registry } from 'prom-client';
import { counterFrom, gaugeFrom, stateGaugeFrom } from '../../lib/metrics.js';
import type { BreakerState } from './breaker.js';
import type { ClusterView } from './cluster-watch.js';

// Degraded Mode counters, kept as plain numbers by the mode (tests and benches read them) and
// exposed through the API's prom-client registry (GET /metrics) when scraped.

/** Why a buyer read was answered without the index. */
export const DEGRADED_CAUSES = ['breaker_open', 'timeout', 'index_error', 'overload'] as const;
export type DegradedCause = (typeof DEGRADED_CAUSES)[number];
/** What answered it. */
const DEGRADED_SOURCES = ['cache', 'fallback'] as const;
type DegradedSource = (typeof DEGRADED_SOURCES)[number];

export interface DegradedMetrics {
  /** Buyer reads answered from the index. */
  indexAnswers: number;
  /** Index queries that failed or timed out. */
  indexFailures: number;
  /** Buyer reads answered in Degraded Mode from the last-good cache. */
  cacheHits: number;
  /** Buyer reads answered in Degraded Mode from PostgreSQL. */
  fallbacks: number;
  /** Degraded answers by why the index did not answer and what did. */
  answers: Record<DegradedCause, Record<DegradedSource, number>>;
  /** PostgreSQL fallback reads actually run (identical concurrent or recent misses share one). */
  fallbackQueries: number;
  /** PostgreSQL fallback reads that failed (timeout, busy, error). */
  fallbackFailures: number;
  /** 503 SERVICE_UNAVAILABLE answers: neither the cache nor PostgreSQL could answer. */
  unavailable: number;
  /** Times the breaker opened. */
  opens: number;
  /** Warm passes run to the end (every warm request tried). */
  warmPasses: number;
  /** Warm requests answered by the index and kept. */
  warmRequests: number;
  /** Warm requests that failed (the pass goes on; the next pass retries them). */
  warmFailures: number;
  /** Searches the index could not take in time (admission): answered from the cache or 503. */
  shed: number;
  /** Index queries that timed out while the cluster answered others (overload: not counted toward opening). */
  overloadTimeouts: number;
}

export function emptyDegradedMetrics(): DegradedMetrics {
  const none = () => ({ cache: 0, fallback: 0 });
  return {
    indexAnswers: 0,
    indexFailures: 0,
    cacheHits: 0,
    fallbacks: 0,
    answers: { breaker_open: none(), timeout: none(), index_error: none(), overload: none() },
    fallbackQueries: 0,
    fallbackFailures: 0,
    unavailable: 0,
    opens: 0,
    warmPasses: 0,
    warmRequests: 0,
    warmFailures: 0,
    shed: 0,
    overloadTimeouts: 0,
  };
}

/** What the Degraded Mode metrics read besides the counters: the state and sizes as of now. */
export interface DegradedGauges {
  state: BreakerState;
  cluster: ClusterView['status'];
  cache: { entries: number; bytes: number };
  warmCache: { entries: number; bytes: number };
  suggestCache: { entries: number; bytes: number };
  fallback: { running: number; waiting: number };
  admission: { running: number; waiting: number };
}

const CLUSTER_STATUSES = ['green', 'yellow', 'red', 'unreachable', 'probe-failed', 'unknown'] as const;

/** Degraded Mode's state, the cluster's last status, the counters and gauges, read from `metrics` and `gauges()` when scraped. */
export function registerDegradedMetrics(registry: Registry, metrics: DegradedMetrics, gauges: () => DegradedGauges): void {
  gaugeFrom(registry, 'degraded_mode', 'Degraded Mode is on (1) or off (0)', () => (gauges().state === 'closed' ? 0 : 1));
  stateGaugeFrom(
    registry,
    'search_breaker_state',
    'Circuit breaker state in front of the search cluster',
    'state',
    ['closed', 'open', 'half-open'],
    () => gauges().state,
  );
  stateGaugeFrom(registry, 'search_cluster_status', 'Last status the cluster watcher saw', 'status', CLUSTER_STATUSES, () => gauges().cluster);
  counterFrom(registry, 'search_breaker_opens_total', 'Times Degraded Mode was entered', () => metrics.opens);
  counterFrom(registry, 'buyer_index_answers_total', 'Buyer reads answered from the index', () => metrics.indexAnswers);
  counterFrom(registry, 'buyer_index_failures_total', 'Buyer index queries that failed or timed out', () => metrics.indexFailures);
  new Counter({
    name: 'degraded_answers_total',
    help: 'Buyer reads answered degraded, by cause (breaker_open: not asked; timeout, index_error: asked and failed; overload: a search not admitted in time) and what answered (cache, fallback)',
    labelNames: ['cause', 'answered_from'],
    registers: [registry],
    collect() {
      this.reset();
      for (const cause of DEGRADED_CAUSES) for (const from of DEGRADED_SOURCES) this.inc({ cause, answered_from: from }, metrics.answers[cause][from]);
    },
  });
  counterFrom(registry, 'degraded_cache_hits_total', 'Buyer reads answered from the last-good cache', () => metrics.cacheHits);
  counterFrom(registry, 'degraded_fallbacks_total', 'Buyer reads answered from PostgreSQL', () => metrics.fallbacks);
  counterFrom(registry, 'degraded_fallback_queries_total', 'PostgreSQL fallback reads run', () => metrics.fallbackQueries);
  counterFrom(registry, 'degraded_fallback_failures_total', 'PostgreSQL fallback reads that failed', () => metrics.fallbackFailures);
  counterFrom(registry, 'degraded_unavailable_total', 'Buyer reads answered 503 SERVICE_UNAVAILABLE', () => metrics.unavailable);
  gaugeFrom(registry, 'degraded_cache_entries', 'Entries in the last-good cache', () => gauges().cache.entries);
  gaugeFrom(registry, 'degraded_cache_bytes', 'Size of the last-good cache (bytes: UTF-8 answers and their keys)', () => gauges().cache.bytes);
  gaugeFrom(registry, 'degraded_warm_cache_entries', "Entries in the warm set's part of the last-good cache", () => gauges().warmCache.entries);
  gaugeFrom(registry, 'degraded_warm_cache_bytes', "Size of the warm set's part of the last-good cache (bytes)", () => gauges().warmCache.bytes);
  gaugeFrom(registry, 'degraded_suggest_cache_entries', "Entries in the suggestions' part of the last-good cache", () => gauges().suggestCache.entries);
  gaugeFrom(registry, 'degraded_suggest_cache_bytes', "Size of the suggestions' part of the last-good cache (bytes)", () => gauges().suggestCache.bytes);
  counterFrom(registry, 'degraded_warm_passes_total', 'Warm passes run to the end', () => metrics.warmPasses);
  counterFrom(registry, 'degraded_warm_requests_total', 'Warm requests answered by the index', () => metrics.warmRequests);
  counterFrom(registry, 'degraded_warm_failures_total', 'Warm requests that failed', () => metrics.warmFailures);
  gaugeFrom(registry, 'degraded_fallback_running', 'PostgreSQL fallback reads running', () => gauges().fallback.running);
  gaugeFrom(registry, 'degraded_fallback_waiting', 'PostgreSQL fallback reads waiting for a slot', () => gauges().fallback.waiting);
  counterFrom(registry, 'buyer_search_shed_total', 'Searches not admitted to the index in time (answered from the cache or 503)', () => metrics.shed);
  counterFrom(
    registry,
    'buyer_index_overload_timeouts_total',
    'Index queries that timed out while the cluster answered others (not counted toward Degraded Mode)',
    () => metrics.overloadTimeouts,
  );
  gaugeFrom(registry, 'buyer_search_running', 'Searches in flight to the index', () => gauges().admission.running);
  gaugeFrom(registry, 'buyer_search_waiting', 'Searches waiting for an index slot', () => gauges().admission.waiting);
}
