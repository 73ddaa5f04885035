import type { EndpointReport } from '../src/db/webhook-deliveries.js';
import type { FinishedAttempt } from './attempt.js';

// The per-endpoint circuit breaker (docs/webhooks.md "Fairness and the breaker"). Its state lives
// in PostgreSQL (webhook_endpoint_health), shared by every dispatcher: attempts in a row without
// an answer open it (the claim then allows one probe at a time, after a cooldown, and leaves the
// endpoint's other events waiting with their schedule), and any answer closes it. This folds a
// batch of finished attempts into what each endpoint's health row must learn from it.

/**
 * Whether an attempt changes its endpoint's health row: any attempt to an endpoint not healthy
 * when claimed, and an unanswered or slow one. The others (a healthy endpoint answering promptly
 * again) change nothing.
 */
export function changesHealth(a: FinishedAttempt, slowMs: number): boolean {
  return a.endpointState !== 'healthy' || a.statusCode === null || a.durationMs > slowMs;
}

/**
 * Per endpoint, in the order the attempts finished: whether any got an answer, how many got none
 * after the last answer, whether that answer was slow, and the probe that ended. Attempts to an
 * endpoint's earlier URL are left out (the row is about its current URL). Only endpoints the batch
 * has news about: one that was healthy when claimed and answered promptly again is left out (its
 * row would not change). Sorted by seller.
 */
export function endpointReports(attempts: readonly FinishedAttempt[], slowMs: number): EndpointReport[] {
  const bySeller = new Map<number, { report: EndpointReport; news: boolean }>();
  for (const a of attempts) {
    let r = bySeller.get(a.sellerId);
    if (!r || r.report.url !== a.url) {
      r = { report: { sellerId: a.sellerId, url: a.url, answered: false, failures: 0, slow: false, probe: null }, news: false };
      bySeller.set(a.sellerId, r);
    }
    const { report } = r;
    if (a.statusCode !== null) {
      report.answered = true;
      report.failures = 0;
      report.slow = a.durationMs > slowMs;
    } else {
      report.failures += 1;
    }
    if (a.endpointState === 'breaker_open') report.probe = { eventId: a.eventId, attempt: a.attempt };
    if (changesHealth(a, slowMs)) r.news = true;
  }
  return [...bySeller.values()]
    .filter((r) => r.news)
    .map((r) => r.report)
    .sort((x, y) => x.sellerId - y.sellerId);
}
