import type { OutboxGauges } from '../src/db/webhook-deliveries.js';
import { ENDPOINT_STATES, type EndpointGauges, type EndpointState } from '../src/db/webhook-endpoints.js';

/** Attempt latency buckets (seconds); the top ones bracket the default 15 s timeout. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

/** What this dispatcher counted since it started (the outbox's own state comes from PostgreSQL). */
export interface DispatcherMetrics {
  /** Attempts by outcome: delivered, retry (a failed attempt with another one scheduled), failed. */
  deliveries: { delivered: number; retry: number; failed: number };
  /** Cumulative counts per LATENCY_BUCKETS bound, then the sum and the count. */
  latency: { buckets: number[]; sum: number; count: number };
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
    latency: { buckets: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 },
    inFlight: 0,
    inFlightByState,
    claims: 0,
    claimed: 0,
    errors: 0,
    pruned: 0,
  };
}

export function observeLatency(m: DispatcherMetrics, seconds: number): void {
  LATENCY_BUCKETS.forEach((le, i) => {
    if (seconds <= le) m.latency.buckets[i]! += 1;
  });
  m.latency.sum += seconds;
  m.latency.count += 1;
}

/** A label value in the exposition format (backslash, quote and newline escaped). */
const label = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function prometheusText(m: DispatcherMetrics, g: OutboxGauges | null, endpoints: EndpointGauges | null = null): string {
  const out: string[] = [];
  const head = (name: string, type: string, help: string) => out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  head('webhook_deliveries_total', 'counter', 'Delivery attempts by outcome (retry: failed, another attempt scheduled)');
  for (const [outcome, n] of Object.entries(m.deliveries)) out.push(`webhook_deliveries_total{outcome="${outcome}"} ${n}`);
  head('webhook_attempt_duration_seconds', 'histogram', 'Duration of one delivery attempt');
  LATENCY_BUCKETS.forEach((le, i) => out.push(`webhook_attempt_duration_seconds_bucket{le="${le}"} ${m.latency.buckets[i]}`));
  out.push(`webhook_attempt_duration_seconds_bucket{le="+Inf"} ${m.latency.count}`);
  out.push(`webhook_attempt_duration_seconds_sum ${m.latency.sum}`, `webhook_attempt_duration_seconds_count ${m.latency.count}`);
  head('webhook_attempts_in_flight', 'gauge', 'Attempts this dispatcher has in flight');
  out.push(`webhook_attempts_in_flight ${m.inFlight}`);
  head('webhook_attempts_in_flight_by_endpoint_state', 'gauge', "Attempts this dispatcher has in flight, by their endpoint's state when claimed");
  for (const s of ENDPOINT_STATES) out.push(`webhook_attempts_in_flight_by_endpoint_state{state="${s}"} ${m.inFlightByState[s]}`);
  head('webhook_claims_total', 'counter', 'Claim statements that took events (webhook_claimed_events_total / this = events per claim)');
  out.push(`webhook_claims_total ${m.claims}`);
  head('webhook_claimed_events_total', 'counter', 'Events claimed');
  out.push(`webhook_claimed_events_total ${m.claimed}`);
  head('webhook_dispatcher_errors_total', 'counter', 'Claims, records or prunes that failed and were retried');
  out.push(`webhook_dispatcher_errors_total ${m.errors}`);
  head('webhook_pruned_events_total', 'counter', 'Finished events deleted past WEBHOOK_RETENTION_DAYS (with their attempts)');
  out.push(`webhook_pruned_events_total ${m.pruned}`);
  if (g) {
    head('webhook_oldest_pending_seconds', 'gauge', 'Age of the oldest event not yet delivered');
    out.push(`webhook_oldest_pending_seconds ${g.oldestPendingSeconds}`);
    head('webhook_pending_events', 'gauge', 'Events waiting for delivery');
    out.push(`webhook_pending_events ${g.pending}`);
    head('webhook_failed_events', 'gauge', 'Events whose retries are exhausted (or answered 410)');
    out.push(`webhook_failed_events ${g.failed}`);
  }
  if (endpoints) {
    head('webhook_pending_events_by_endpoint_state', 'gauge', "Events waiting for delivery, by their endpoint's state");
    for (const s of ENDPOINT_STATES) out.push(`webhook_pending_events_by_endpoint_state{state="${s}"} ${endpoints.byState[s].pending}`);
    head('webhook_endpoints', 'gauge', 'Webhook endpoints by state (healthy, untried, degraded, breaker_open)');
    for (const s of ENDPOINT_STATES) out.push(`webhook_endpoints{state="${s}"} ${endpoints.byState[s].endpoints}`);
    head('webhook_breaker_open_pending_events', 'gauge', 'Per seller whose endpoint breaker is open: its events waiting');
    for (const b of endpoints.breakerOpen) out.push(`webhook_breaker_open_pending_events{seller="${label(b.sellerCode)}"} ${b.pending}`);
  }
  return out.join('\n') + '\n';
}
