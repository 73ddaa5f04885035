import { Counter, Histogram, type Registry } from 'prom-client';
import type { StoreFallback } from './rate-limiter.js';

// The HTTP side of the API's metrics: how long requests take, by route template (never the raw
// path: one series per route, not per product id) and status class, and which limit refused them.

/** The limits that answer 429 RATE_LIMITED (README, Configuration). */
export const RATE_LIMITS = ['public', 'seller_key', 'seller_address', 'auth_failures', 'seller_writes'] as const;
export type RateLimit = (typeof RATE_LIMITS)[number];

/** Seconds; buyer reads answer in tens of ms, Degraded Mode's fallback within 2.5 s, seller writes within 10 s. */
export const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface HttpMetrics {
  /** One finished request; `status` 'aborted' when the client went away before the response ended. */
  observe(method: string, route: string, status: number | 'aborted', seconds: number): void;
  /** A request refused with 429 by `limit`. */
  rateLimited(limit: RateLimit): void;
  /** A shared limiter's take answered by the process's own budget because its store did not (timeout, error, busy). */
  storeFallback(limiter: SharedLimitName, reason: StoreFallback): void;
}

/** The shared limiters (budgets kept in PostgreSQL), by their `rate_limits` key prefix. */
export type SharedLimitName = 'seller' | 'auth-failures';

// The methods a route can answer; anything else a client sends is `other`, so a scan with made-up
// methods cannot add series.
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The `method` label of a request: a known HTTP method, or `other`. */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : 'other';
}

export function statusClass(status: number | 'aborted'): string {
  return status === 'aborted' ? 'aborted' : `${Math.floor(status / 100)}xx`;
}

export function httpMetrics(registry: Registry): HttpMetrics {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'API requests by method, route template and status class (2xx, 4xx, 5xx, aborted), from the first byte read to the last written',
    labelNames: ['method', 'route', 'status_class'],
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const limited = new Counter({
    name: 'http_rate_limited_total',
    help: 'Requests refused with 429 RATE_LIMITED, by the limit that refused them',
    labelNames: ['limit'],
    registers: [registry],
  });
  // Every limit shows from the start (0), so an alert on its rate has a series to read.
  for (const limit of RATE_LIMITS) limited.inc({ limit }, 0);
  const fallbacks = new Counter({
    name: 'rate_limit_store_fallbacks_total',
    help: "Shared-limiter takes answered by the process's own budget because PostgreSQL did not answer in time (timeout), failed (error) or already had every limiter connection busy (busy)",
    labelNames: ['limiter', 'reason'],
    registers: [registry],
  });
  for (const limiter of ['seller', 'auth-failures'] as const)
    for (const reason of ['timeout', 'error', 'busy'] as const) fallbacks.inc({ limiter, reason }, 0);
  return {
    observe: (method, route, status, seconds) => duration.observe({ method: methodLabel(method), route, status_class: statusClass(status) }, seconds),
    rateLimited: (limit) => limited.inc({ limit }),
    storeFallback: (limiter, reason) => fallbacks.inc({ limiter, reason }),
  };
}
