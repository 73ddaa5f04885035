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
