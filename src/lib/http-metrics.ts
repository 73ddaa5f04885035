import { Counter, Histogram, type Registry } from 'prom-client';

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
  return {
    observe: (method, route, status, seconds) => duration.observe({ method, route, status_class: statusClass(status) }, seconds),
    rateLimited: (limit) => limited.inc({ limit }),
  };
}
