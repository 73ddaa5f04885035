import type { EndpointReport } from '../src/db/webhook-deliveries.js';
import type { FinishedAttempt } from './attempt.js';

// The per-endpoint circuit breaker (docs/webhooks.md "Fairness and the breaker"). Its state lives
// in PostgreSQL (webhook_endpoint_health), shared by every dispatcher: attempts in a row without
// an answer open it (the claim then allows one probe at a time, after a cooldown, and leaves the
// endpoint's other events waiting with their schedule), and any answer closes it. This folds a
// batch of finished attempts into what each endpoint's health row must learn from it.

/**
 * Per endpoint, in the order the attempts finished: whether any got an answer, how many got none
 * after the last answer, whether that answer was slow, and the probe that ended. Attempts to an
 * endpoint's earlier URL are left out (the row is about its current URL). Sorted by seller.
 */
export function endpointReports(attempts: readonly FinishedAttempt[], slowMs: number): EndpointReport[] {
  const bySeller = new Map<number, EndpointReport>();
  for (const a of attempts) {
    let r = bySeller.get(a.sellerId);
    if (!r || r.url !== a.url) {
      r = { sellerId: a.sellerId, url: a.url, answered: false, failures: 0, slow: false, probe: null };
      bySeller.set(a.sellerId, r);
    }
    if (a.statusCode !== null) {
      r.answered = true;
      r.failures = 0;
      r.slow = a.durationMs > slowMs;
    } else {
      r.failures += 1;
    }
    if (a.probe) r.probe = { eventId: a.eventId, attempt: a.attempt };
  }
  return [...bySeller.values()].sort((x, y) => x.sellerId - y.sellerId);
}
