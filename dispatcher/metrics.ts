import { Gauge, Histogram, type Registry } from 'prom-client';
import type { OutboxGauges } from '../src/db/webhook-deliveries.js';
import { counterFrom, gaugeFrom, labelledCounterFrom } from '../src/lib/metrics.js';

/** Attempt latency buckets (seconds); the top ones bracket the default 15 s timeout. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

/** What this dispatcher counted since it started (the outbox's own state comes from PostgreSQL). */
export interface DispatcherMetrics {
  /** Attempts by outcome: delivered, retry (a failed attempt with another one scheduled), failed. */
  deliveries: { delivered: number; retry: number; failed: number };
  /** Duration of each attempt (put in the process's registry by registerDispatcherMetrics). */
  latency: Histogram;
  inFlight: number;
  /** Claim statements that took at least one event, and the events they took. */
  claims: number;
  claimed: number;
  /** Claims or records that failed (PostgreSQL unavailable); retried. */
  errors: number;
}

export function emptyMetrics(): DispatcherMetrics {
  return {
    deliveries: { delivered: 0, retry: 0, failed: 0 },
    latency: new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of one delivery attempt',
      buckets: LATENCY_BUCKETS,
      registers: [],
    }),
    inFlight: 0,
    claims: 0,
    claimed: 0,
    errors: 0,
  };
}

export function observeLatency(m: DispatcherMetrics, seconds: number): void {
  m.latency.observe(seconds);
}

/**
 * A read of PostgreSQL shared by every gauge of one scrape (they are collected together), so a
 * scrape costs one outbox query; null when PostgreSQL does not answer (the gauges then keep their
 * last value, so an alert on them neither clears nor fires on the outage, and the process's own
 * counters still answer).
 */
function perScrape<T>(read: () => Promise<T>): () => Promise<T | null> {
  let last: { at: number; value: Promise<T | null> } | null = null;
  return () => {
    if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), value: read().catch(() => null) };
    return last.value;
  };
}

/** The dispatcher's counters, its attempt histogram and the outbox's gauges (read from PostgreSQL when scraped) in `registry`. */
export function registerDispatcherMetrics(registry: Registry, m: DispatcherMetrics, outbox: () => Promise<OutboxGauges>): void {
  registry.registerMetric(m.latency);
  labelledCounterFrom(
    registry,
    'webhook_deliveries_total',
    'Delivery attempts by outcome (retry: failed, another attempt scheduled)',
    'outcome',
    ['delivered', 'retry', 'failed'] as const,
    () => m.deliveries,
  );
  gaugeFrom(registry, 'webhook_attempts_in_flight', 'Attempts this dispatcher has in flight', () => m.inFlight);
  counterFrom(
    registry,
    'webhook_claims_total',
    'Claim statements that took events (webhook_claimed_events_total / this = events per claim)',
    () => m.claims,
  );
  counterFrom(registry, 'webhook_claimed_events_total', 'Events claimed', () => m.claimed);
  counterFrom(registry, 'webhook_dispatcher_errors_total', 'Claims or records that failed and were retried', () => m.errors);
  const read = perScrape(outbox);
  const outboxGauge = (name: string, help: string, pick: (g: OutboxGauges) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const g = await read();
        if (g) this.set(pick(g));
      },
    });
  outboxGauge('webhook_oldest_pending_seconds', 'Age of the oldest event not yet delivered', (g) => g.oldestPendingSeconds);
  outboxGauge('webhook_pending_events', 'Events waiting for delivery', (g) => g.pending);
  outboxGauge('webhook_failed_events', 'Events whose retries are exhausted (or answered 410)', (g) => g.failed);
}
