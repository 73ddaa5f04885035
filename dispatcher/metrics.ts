import { Gauge, Histogram, type Registry } from 'prom-client';
import type { OutboxGauges } from '../src/db/webhook-deliveries.js';
import { ENDPOINT_STATES, type EndpointGauges, type EndpointState } from '../src/db/webhook-endpoints.js';
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
  /** Attempts in flight by their endpoint's state when claimed. */
  inFlightByState: Readonly<Record<EndpointState, number>>;
  /** Claim statements that took at least one event, and the events they took. */
  claims: number;
  claimed: number;
  /** Claims, records or prunes that failed (PostgreSQL unavailable); retried. */
  errors: number;
  /** Finished events deleted past WEBHOOK_RETENTION_DAYS. */
  pruned: number;
}

export function emptyMetrics(inFlightByState: Readonly<Record<EndpointState, number>>): DispatcherMetrics {
  return {
    deliveries: { delivered: 0, retry: 0, failed: 0 },
    latency: new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Duration of one delivery attempt',
      buckets: LATENCY_BUCKETS,
      registers: [],
    }),
    inFlight: 0,
    inFlightByState,
    claims: 0,
    claimed: 0,
    errors: 0,
    pruned: 0,
  };
}

export function observeLatency(m: DispatcherMetrics, seconds: number): void {
  m.latency.observe(seconds);
}

/**
 * A read of PostgreSQL shared by every gauge of one scrape (they are collected together), so a
 * scrape costs one query of each kind; null when PostgreSQL does not answer (the gauges then keep
 * their last value, so an alert on them neither clears nor fires on the outage, and the process's
 * own counters still answer).
 */
function perScrape<T>(read: () => Promise<T>): () => Promise<T | null> {
  let last: { at: number; value: Promise<T | null> } | null = null;
  return () => {
    if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), value: read().catch(() => null) };
    return last.value;
  };
}

/** What the dispatcher's gauges read from PostgreSQL when scraped. */
export interface DispatcherReads {
  outbox: () => Promise<OutboxGauges>;
  endpoints: () => Promise<EndpointGauges>;
}

/** The dispatcher's counters, its attempt histogram and the outbox's and endpoints' gauges (read from PostgreSQL when scraped) in `registry`. */
export function registerDispatcherMetrics(registry: Registry, m: DispatcherMetrics, reads: DispatcherReads): void {
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
  new Gauge({
    name: 'webhook_attempts_in_flight_by_endpoint_state',
    help: "Attempts this dispatcher has in flight, by their endpoint's state when claimed",
    labelNames: ['state'],
    registers: [registry],
    collect() {
      for (const s of ENDPOINT_STATES) this.set({ state: s }, m.inFlightByState[s]);
    },
  });
  counterFrom(
    registry,
    'webhook_claims_total',
    'Claim statements that took events (webhook_claimed_events_total / this = events per claim)',
    () => m.claims,
  );
  counterFrom(registry, 'webhook_claimed_events_total', 'Events claimed', () => m.claimed);
  counterFrom(registry, 'webhook_dispatcher_errors_total', 'Claims, records or prunes that failed and were retried', () => m.errors);
  counterFrom(registry, 'webhook_pruned_events_total', 'Finished events deleted past WEBHOOK_RETENTION_DAYS (with their attempts)', () => m.pruned);

  const outbox = perScrape(reads.outbox);
  const outboxGauge = (name: string, help: string, pick: (g: OutboxGauges) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const g = await outbox();
        if (g) this.set(pick(g));
      },
    });
  outboxGauge('webhook_oldest_pending_seconds', 'Age of the oldest event not yet delivered', (g) => g.oldestPendingSeconds);
  outboxGauge('webhook_pending_events', 'Events waiting for delivery', (g) => g.pending);
  outboxGauge('webhook_failed_events', 'Events whose retries are exhausted (or answered 410)', (g) => g.failed);

  const endpoints = perScrape(reads.endpoints);
  const byStateGauge = (name: string, help: string, pick: (s: { endpoints: number; pending: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        const e = await endpoints();
        if (e) for (const s of ENDPOINT_STATES) this.set({ state: s }, pick(e.byState[s]));
      },
    });
  byStateGauge('webhook_pending_events_by_endpoint_state', "Events waiting for delivery, by their endpoint's state", (s) => s.pending);
  byStateGauge('webhook_endpoints', 'Webhook endpoints by state (healthy, untried, degraded, breaker_open)', (s) => s.endpoints);
  new Gauge({
    name: 'webhook_breaker_open_pending_events',
    help: 'Per seller whose endpoint breaker is open: its events waiting',
    labelNames: ['seller'],
    registers: [registry],
    async collect() {
      const e = await endpoints();
      if (!e) return;
      // One series per seller whose breaker is open now: a seller whose breaker closed drops out.
      this.reset();
      for (const b of e.breakerOpen) this.set({ seller: b.sellerCode }, b.pending);
    },
  });
}
