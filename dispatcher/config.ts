import type { Env } from '../src/config/env.js';

export interface DispatcherConfig {
  timeoutMs: number;
  /** The delay before each retry; after the last one the event is failed. */
  retryDelaysMs: readonly number[];
  allowPrivateNetworks: boolean;
  /** Attempts in flight in this process, in all. */
  concurrency: number;
  /** Of those, at most this many to untried endpoints (one each: their first attempt, a probe). */
  untriedConcurrency: number;
  /** Of those, at most this many to degraded and breaker-open endpoints (and untried ones beyond their own share). */
  unhealthyConcurrency: number;
  /** Attempts in flight in this process, per endpoint (a seller has one). */
  perEndpoint: number;
  /** Attempts in a row without an answer that open an endpoint's breaker. */
  breakerFailures: number;
  /** While the breaker is open, the wait after a failed attempt before the next probe. */
  breakerCooldownMs: number;
  /** An answer slower than this leaves its endpoint degraded. */
  slowMs: number;
  /** Safety-net poll; NOTIFY is only a hint. */
  pollMs: number;
  /** Finished events are deleted this many days after they finished. */
  retentionDays: number;
}

/** The dispatcher's settings from the environment (README "Configuration"). */
export function dispatcherConfig(env: Env): DispatcherConfig {
  const untried = env.WEBHOOK_CONCURRENCY_UNTRIED ?? Math.max(1, Math.floor(env.WEBHOOK_CONCURRENCY / 8));
  const unhealthy = env.WEBHOOK_CONCURRENCY_UNHEALTHY ?? Math.max(1, Math.floor(env.WEBHOOK_CONCURRENCY / 4));
  // Healthy endpoints must keep some slots whatever the others do.
  if (untried + unhealthy >= env.WEBHOOK_CONCURRENCY) {
    throw new Error(
      `WEBHOOK_CONCURRENCY_UNTRIED (${untried}) + WEBHOOK_CONCURRENCY_UNHEALTHY (${unhealthy}) must be below WEBHOOK_CONCURRENCY (${env.WEBHOOK_CONCURRENCY}): healthy endpoints keep the difference`,
    );
  }
  return {
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    retryDelaysMs: env.WEBHOOK_RETRY_DELAYS_MS,
    allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    concurrency: env.WEBHOOK_CONCURRENCY,
    untriedConcurrency: untried,
    unhealthyConcurrency: unhealthy,
    perEndpoint: env.WEBHOOK_CONCURRENCY_PER_ENDPOINT,
    breakerFailures: env.WEBHOOK_BREAKER_FAILURES,
    breakerCooldownMs: env.WEBHOOK_BREAKER_COOLDOWN_MS,
    slowMs: env.WEBHOOK_SLOW_MS,
    pollMs: env.WEBHOOK_POLL_MS,
    retentionDays: env.WEBHOOK_RETENTION_DAYS,
  };
}
