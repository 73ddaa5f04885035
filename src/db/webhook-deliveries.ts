import type { Pool } from './pool.js';

// Delivery side of the webhook outbox (webhook_events, written by src/db/webhook-events.ts in the
// order transactions), after the claim (src/db/webhook-claim.ts). `attempts`, incremented by the
// claim, fences the result: a dispatcher whose lease expired (it hung, or was killed and another
// one took over) cannot overwrite the next claimant's outcome.

export type AttemptOutcome = 'delivered' | 'retry' | 'failed';

export interface AttemptResult {
  eventId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  outcome: AttemptOutcome;
  /** For 'retry': the next attempt is due this long after the record. */
  delayMs: number | null;
}

/**
 * What a batch of attempts says about one endpoint (dispatcher/endpoint-health.ts folds it), applied to
 * its health row by recordAttempts.
 */
export interface EndpointReport {
  sellerId: number;
  /** The URL the attempts went to (a report about an earlier URL changes nothing). */
  url: string;
  /** Some attempt of the batch got an answer: `failures` then counts only those after it. */
  answered: boolean;
  /** Attempts without an answer (after the last answered one). */
  failures: number;
  /** The last answer was slow. */
  slow: boolean;
  /** The breaker's probe that ended in this batch, if any: it frees the probe slot. */
  probe: { eventId: string; attempt: number } | null;
}

const PROBE_ENDED = 'h.probe_event_id = x.probe_event_id AND h.probe_attempt = x.probe_attempt';

/** The attempt rows and the event updates of a record (parameters $1-$8). */
const RECORD_EVENTS = {
  ctes: `r AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::int[])
         AS r(event_id, attempt, started_at, duration_ms, status_code, error, outcome, delay_ms)
     ), logged AS (
       INSERT INTO webhook_attempts (event_id, attempt, started_at, duration_ms, status_code, error)
       SELECT event_id, attempt, started_at, duration_ms, status_code, error FROM r
       ON CONFLICT DO NOTHING
     )`,
  update: `UPDATE webhook_events e SET
       state = CASE r.outcome WHEN 'retry' THEN 'pending' ELSE r.outcome END,
       next_attempt_at = CASE WHEN r.outcome = 'retry'
         THEN clock_timestamp() + r.delay_ms * interval '1 millisecond' ELSE e.next_attempt_at END,
       locked_until = NULL,
       last_status = r.status_code,
       last_error = r.error,
       delivered_at = CASE WHEN r.outcome = 'delivered' THEN clock_timestamp() ELSE e.delivered_at END,
       failed_at = CASE WHEN r.outcome = 'failed' THEN clock_timestamp() ELSE e.failed_at END
     FROM r
     WHERE e.event_id = r.event_id AND e.attempts = r.attempt AND e.state = 'pending'
     RETURNING e.event_id`,
};

/** The endpoint health updates of a record (parameters $9-$15). */
const RECORD_HEALTH = `reports AS (
       SELECT * FROM unnest($9::int[], $10::text[], $11::bool[], $12::int[], $13::bool[], $14::text[], $15::int[])
         AS x(seller_id, url, answered, failures, slow, probe_event_id, probe_attempt)
     ), health_rows AS (
       -- Only rows this report changes, locked in seller order as the claim locks them: concurrent
       -- records and claims never deadlock.
       SELECT h.seller_id FROM webhook_endpoint_health h JOIN reports x ON x.seller_id = h.seller_id AND x.url = h.url
       WHERE x.failures > 0 OR ${PROBE_ENDED}
          OR (x.answered AND (h.failures > 0 OR h.answered_at IS NULL OR h.slow <> x.slow))
       ORDER BY h.seller_id
       FOR UPDATE OF h
     ), health AS (
       UPDATE webhook_endpoint_health h SET
         failures = CASE WHEN x.answered THEN x.failures ELSE h.failures + x.failures END,
         last_failure_at = CASE WHEN x.failures > 0 THEN clock_timestamp() ELSE h.last_failure_at END,
         answered_at = CASE WHEN x.answered THEN clock_timestamp() ELSE h.answered_at END,
         slow = CASE WHEN x.answered THEN x.slow ELSE h.slow END,
         -- The probe that ended frees the probe slot (a late record of an older probe does not).
         probe_event_id = CASE WHEN ${PROBE_ENDED} THEN NULL ELSE h.probe_event_id END,
         probe_attempt = CASE WHEN ${PROBE_ENDED} THEN NULL ELSE h.probe_attempt END,
         probe_until = CASE WHEN ${PROBE_ENDED} THEN NULL ELSE h.probe_until END
       FROM health_rows hr, reports x
       WHERE h.seller_id = hr.seller_id AND x.seller_id = hr.seller_id
     )`;

/**
 * Records attempts (many in one statement: the dispatcher batches them) and moves each event on:
 * delivered, failed, or pending again at its next attempt with the lease released; and, for the
 * endpoints reported, their health. An attempt whose claim was overtaken (attempts moved on) is
 * logged but does not change its event. Returns the ids whose event was updated.
 */
export async function recordAttempts(pool: Pool, results: readonly AttemptResult[], endpoints: readonly EndpointReport[] = []): Promise<string[]> {
  if (results.length === 0 && endpoints.length === 0) return [];
  const events = [
    results.map((r) => r.eventId),
    results.map((r) => r.attempt),
    results.map((r) => r.startedAt),
    results.map((r) => Math.round(r.durationMs)),
    results.map((r) => r.statusCode),
    results.map((r) => r.error),
    results.map((r) => r.outcome),
    results.map((r) => r.delayMs),
  ];
  // Most batches carry no news about any endpoint (healthy ones answering again): the statement
  // without the health part then costs what recording alone costs.
  const { rows } = await pool.query<{ event_id: string }>(
    endpoints.length === 0
      ? { name: 'webhook-record', text: `WITH ${RECORD_EVENTS.ctes} ${RECORD_EVENTS.update}`, values: events }
      : {
          name: 'webhook-record-health',
          text: `WITH ${RECORD_EVENTS.ctes}, ${RECORD_HEALTH} ${RECORD_EVENTS.update}`,
          values: [
            ...events,
            endpoints.map((x) => x.sellerId),
            endpoints.map((x) => x.url),
            endpoints.map((x) => x.answered),
            endpoints.map((x) => x.failures),
            endpoints.map((x) => x.slow),
            endpoints.map((x) => x.probe?.eventId ?? null),
            endpoints.map((x) => x.probe?.attempt ?? null),
          ],
        },
  );
  return rows.map((r) => r.event_id);
}

/**
 * Pending events of sellers that no longer have a webhook: nothing would ever claim them, and
 * polling serves such a seller, so they become 'no_endpoint' like events written without one.
 */
export async function parkEventsWithoutEndpoint(pool: Pool): Promise<number> {
  const r = await pool.query(
    `UPDATE webhook_events e SET state = 'no_endpoint', locked_until = NULL
     WHERE e.state = 'pending' AND NOT EXISTS (SELECT 1 FROM seller_webhooks w WHERE w.seller_id = e.seller_id)`,
  );
  return r.rowCount ?? 0;
}

/**
 * When the next pending event of a seller with a webhook falls due (null: none scheduled in the
 * future). `now()` bounds each seller's index range, so its due (past) events are not walked.
 */
export async function nextDueAt(pool: Pool): Promise<Date | null> {
  const { rows } = await pool.query<{ at: Date | null }>(
    `SELECT min(n.at) AS at FROM seller_webhooks w CROSS JOIN LATERAL (
       SELECT e.next_attempt_at AS at FROM webhook_events e
       WHERE e.seller_id = w.seller_id AND e.state = 'pending' AND e.next_attempt_at > now()
       ORDER BY e.next_attempt_at LIMIT 1) n`,
  );
  return rows[0]?.at ?? null;
}

/**
 * Deletes up to `batch` finished events (delivered, failed, no_endpoint) that finished more than
 * `retentionDays` ago, oldest first, with their attempts (ON DELETE CASCADE). A short statement
 * that skips rows another transaction holds (a redeliver, another dispatcher's prune), so it never
 * waits on nor blocks the queue for long. Returns how many it deleted.
 */
export async function pruneFinishedEvents(pool: Pool, retentionDays: number, batch: number): Promise<number> {
  const r = await pool.query(
    `DELETE FROM webhook_events e USING (
       SELECT event_id FROM webhook_events
       WHERE state <> 'pending' AND greatest(created_at, delivered_at, failed_at) < now() - $1::float8 * interval '1 day'
       ORDER BY greatest(created_at, delivered_at, failed_at) -- with now() (stable), an index range
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     ) old
     WHERE e.event_id = old.event_id`,
    [retentionDays, batch],
  );
  return r.rowCount ?? 0;
}

export interface OutboxGauges {
  pending: number;
  failed: number;
  /** Age of the oldest pending event (0 when none). */
  oldestPendingSeconds: number;
}

export async function outboxGauges(pool: Pool): Promise<OutboxGauges> {
  const { rows } = await pool.query<{ pending: number; failed: number; oldest: number | null }>(
    `SELECT (SELECT count(*) FROM webhook_events WHERE state = 'pending')::int AS pending,
            (SELECT count(*) FROM webhook_events WHERE state = 'failed')::int AS failed,
            (SELECT extract(epoch FROM clock_timestamp() - min(created_at)) FROM webhook_events WHERE state = 'pending')::float8 AS oldest`,
  );
  const r = rows[0]!;
  return { pending: r.pending, failed: r.failed, oldestPendingSeconds: r.oldest ?? 0 };
}

export interface RedeliverOptions {
  sellerCode: string;
  /** Only events created at or after this instant. */
  since?: Date;
  /** Only failed events (otherwise failed, delivered and no_endpoint ones). */
  failedOnly: boolean;
}

export class RedeliverError extends Error {}

/**
 * Puts a seller's finished events back in the queue, due now, with a fresh retry schedule (for a
 * Platform that was down longer than the retry window). Events still pending are left as they
 * are. Returns how many were queued.
 */
export async function redeliver(pool: Pool, o: RedeliverOptions): Promise<number> {
  const { rows } = await pool.query<{ seller_id: number; has_webhook: boolean }>(
    `SELECT s.seller_id, EXISTS (SELECT 1 FROM seller_webhooks w WHERE w.seller_id = s.seller_id) AS has_webhook
     FROM sellers s WHERE s.seller_code = $1`,
    [o.sellerCode],
  );
  const seller = rows[0];
  if (!seller) throw new RedeliverError(`no seller with code '${o.sellerCode}'`);
  if (!seller.has_webhook) throw new RedeliverError(`seller '${o.sellerCode}' has no webhook; nothing can be delivered`);
  const states = o.failedOnly ? ['failed'] : ['failed', 'delivered', 'no_endpoint'];
  const r = await pool.query(
    `UPDATE webhook_events SET state = 'pending', round_start = attempts, next_attempt_at = clock_timestamp(),
       locked_until = NULL, failed_at = NULL
     WHERE seller_id = $1 AND state = ANY($2::text[]) AND ($3::timestamptz IS NULL OR created_at >= $3)`,
    [seller.seller_id, states, o.since ?? null],
  );
  // The NOTIFY trigger fires on insert only: wake running dispatchers (they also poll).
  if (r.rowCount) await pool.query(`SELECT pg_notify('webhook_events', '')`);
  return r.rowCount ?? 0;
}
