import { renderPrometheus } from '../../lib/prometheus.js';
import type { BreakerState } from './breaker.js';
import type { ClusterView } from './cluster-watch.js';

// Degraded Mode counters, exposed in Prometheus text format by GET /metrics.

export interface DegradedMetrics {
  /** Buyer reads answered from the index. */
  indexAnswers: number;
  /** Index queries that failed or timed out. */
  indexFailures: number;
  /** Buyer reads answered in Degraded Mode from the last-good cache. */
  cacheHits: number;
  /** Buyer reads answered in Degraded Mode from PostgreSQL. */
  fallbacks: number;
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
}

export function emptyDegradedMetrics(): DegradedMetrics {
  return {
    indexAnswers: 0,
    indexFailures: 0,
    cacheHits: 0,
    fallbacks: 0,
    fallbackQueries: 0,
    fallbackFailures: 0,
    unavailable: 0,
    opens: 0,
    warmPasses: 0,
    warmRequests: 0,
    warmFailures: 0,
  };
}

/** What the Degraded Mode metrics read besides the counters: the state and sizes as of now. */
export interface DegradedGauges {
  state: BreakerState;
  cluster: ClusterView['status'];
  cache: { entries: number; bytes: number };
  warmCache: { entries: number; bytes: number };
  fallback: { running: number; waiting: number };
}

/** Prometheus text of Degraded Mode: its state, the cluster's last status, the counters and gauges. */
export function degradedPrometheus(metrics: DegradedMetrics, g: DegradedGauges): string {
  return renderPrometheus([
    { name: 'degraded_mode', help: 'Degraded Mode is on (1) or off (0)', type: 'gauge', value: g.state === 'closed' ? 0 : 1 },
    ...(['closed', 'open', 'half-open'] as const).map((s) => ({
      name: 'search_breaker_state',
      help: 'Circuit breaker state in front of the search cluster',
      type: 'gauge' as const,
      value: s === g.state ? 1 : 0,
      labels: { state: s },
    })),
    ...(['green', 'yellow', 'red', 'unreachable', 'probe-failed', 'unknown'] as const).map((s) => ({
      name: 'search_cluster_status',
      help: 'Last status the cluster watcher saw',
      type: 'gauge' as const,
      value: g.cluster === s ? 1 : 0,
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
    { name: 'degraded_cache_entries', help: 'Entries in the last-good cache', type: 'gauge', value: g.cache.entries },
    { name: 'degraded_cache_bytes', help: 'Size of the last-good cache (JSON characters)', type: 'gauge', value: g.cache.bytes },
    { name: 'degraded_warm_cache_entries', help: "Entries in the warm set's part of the last-good cache", type: 'gauge', value: g.warmCache.entries },
    {
      name: 'degraded_warm_cache_bytes',
      help: "Size of the warm set's part of the last-good cache (JSON characters)",
      type: 'gauge',
      value: g.warmCache.bytes,
    },
    { name: 'degraded_warm_passes_total', help: 'Warm passes run to the end', type: 'counter', value: metrics.warmPasses },
    { name: 'degraded_warm_requests_total', help: 'Warm requests answered by the index', type: 'counter', value: metrics.warmRequests },
    { name: 'degraded_warm_failures_total', help: 'Warm requests that failed', type: 'counter', value: metrics.warmFailures },
    { name: 'degraded_fallback_running', help: 'PostgreSQL fallback reads running', type: 'gauge', value: g.fallback.running },
    { name: 'degraded_fallback_waiting', help: 'PostgreSQL fallback reads waiting for a slot', type: 'gauge', value: g.fallback.waiting },
  ]);
}
