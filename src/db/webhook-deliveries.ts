import type { Pool } from './pool.js';

// Delivery side of the webhook outbox (webhook_events, written by src/db/webhook-events.ts in the
// order transactions). A dispatcher claims due events with FOR UPDATE SKIP LOCKED and commits a
// lease (locked_until) BEFORE its HTTP call, so no transaction stays open across the network and
// another dispatcher skips the event until the lease passes. `attempts` is incremented by the
// claim and fences the result: a dispatcher whose lease expired (it hung, or was killed and
// another one took over) cannot overwrite the next claimant's outcome.

export interface ClaimedEvent {
  eventId: string;
  sellerId: number;
  type: string;
  apiVersion: string;
  createdAt: Date;
  /** The event's data JSON exactly as stored: spliced into the envelope, never re-serialized. */
  data: string;
  /** When this attempt was due (the seller's walk may start here next time). */
  nextAttemptAt: Date;
  /** This attempt's number over all rounds (webhook_attempts.attempt). */
  attempt: number;
  /** `attempts` when this round of retries began (0, or where a redeliver restarted it). */
  roundStart: number;
  url: string;
  secret: string;
}

export interface ClaimOptions {
  /** At most this many events in all. */
  limit: number;
  /** Per seller (one endpoint per seller): at most this many in flight in this dispatcher. */
  perEndpoint: number;
  /** Events this dispatcher has in flight, per seller; their slots are taken. */
  busy: ReadonlyMap<number, number>;
  leaseMs: number;
  /**
   * Per seller, start the walk of its due events here (events due earlier are not seen). Delivered
   * events leave dead entries at the front of the due index until they are cleaned, and each claim
   * would walk them again; a dispatcher passes where its last claim of that seller ended, and
   * claims without it (a full walk) often enough to find what lies behind (see dispatcher/loop.ts).
   */
  from?: ReadonlyMap<number, Date>;
}

/**
 * Claims due pending events: per seller with a webhook, its oldest due ones up to its free slots
 * (so one seller's backlog or hanging endpoint never holds back the others), then the oldest of
 * those up to `limit`. One statement, committed on return.
 */
export async function claimDue(pool: Pool, o: ClaimOptions): Promise<ClaimedEvent[]> {
  if (o.limit <= 0) return [];
  const busySellers = [...o.busy.keys()];
  const busyCounts = busySellers.map((s) => o.busy.get(s)!);
  const fromSellers = o.from ? [...o.from.keys()] : [];
  const fromAt = fromSellers.map((s) => o.from!.get(s)!);
  const { rows } = await pool.query<{
    event_id: string;
    seller_id: number;
    type: string;
    api_version: string;
    created_at: Date;
    next_attempt_at: Date;
    data: string;
    attempts: number;
    round_start: number;
    url: string;
    secret: string;
  }>(
    `WITH busy AS (
       SELECT * FROM unnest($3::int[], $4::int[]) AS b(seller_id, n)
     ), walk AS (
       SELECT * FROM unnest($6::int[], $7::timestamptz[]) AS f(seller_id, at)
     ), picked AS (
       SELECT c.event_id
       FROM seller_webhooks w
       LEFT JOIN busy ON busy.seller_id = w.seller_id
       LEFT JOIN walk ON walk.seller_id = w.seller_id
       CROSS JOIN LATERAL (
         SELECT e.event_id, e.next_attempt_at FROM webhook_events e
         WHERE e.seller_id = w.seller_id AND e.state = 'pending' AND e.next_attempt_at <= clock_timestamp()
           AND e.next_attempt_at >= coalesce(walk.at, '-infinity')
           AND (e.locked_until IS NULL OR e.locked_until <= clock_timestamp())
         ORDER BY e.next_attempt_at
         LIMIT greatest($2::int - coalesce(busy.n, 0), 0)
         FOR UPDATE OF e SKIP LOCKED
       ) c
       ORDER BY c.next_attempt_at
       LIMIT $1
     )
     UPDATE webhook_events e
     SET attempts = e.attempts + 1, locked_until = clock_timestamp() + $5::int * interval '1 millisecond'
     FROM picked, seller_webhooks w
     WHERE e.event_id = picked.event_id AND w.seller_id = e.seller_id
     RETURNING e.event_id, e.seller_id, e.type, e.api_version, e.created_at, e.next_attempt_at, e.data, e.attempts, e.round_start, w.url, w.secret`,
    [o.limit, o.perEndpoint, busySellers, busyCounts, o.leaseMs, fromSellers, fromAt],
  );
  return rows.map((r) => ({
    eventId: r.event_id,
    sellerId: r.seller_id,
    type: r.type,
    apiVersion: r.api_version,
    createdAt: r.created_at,
    nextAttemptAt: r.next_attempt_at,
    data: r.data,
    attempt: r.attempts,
    roundStart: r.round_start,
    url: r.url,
    secret: r.secret,
  }));
}

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
 * Records attempts (many in one statement: the dispatcher batches them) and moves each event on:
 * delivered, failed, or pending again at its next attempt with the lease released. An attempt
 * whose claim was overtaken (attempts moved on) is logged but changes nothing. Returns the ids
 * whose event was updated.
 */
export async function recordAttempts(pool: Pool, results: readonly AttemptResult[]): Promise<string[]> {
  if (results.length === 0) return [];
  const { rows } = await pool.query<{ event_id: string }>(
    `WITH r AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::int[])
         AS r(event_id, attempt, started_at, duration_ms, status_code, error, outcome, delay_ms)
     ), logged AS (
       INSERT INTO webhook_attempts (event_id, attempt, started_at, duration_ms, status_code, error)
       SELECT event_id, attempt, started_at, duration_ms, status_code, error FROM r
       ON CONFLICT DO NOTHING
     )
     UPDATE webhook_events e SET
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
    [
      results.map((r) => r.eventId),
      results.map((r) => r.attempt),
      results.map((r) => r.startedAt),
      results.map((r) => Math.round(r.durationMs)),
      results.map((r) => r.statusCode),
      results.map((r) => r.error),
      results.map((r) => r.outcome),
      results.map((r) => r.delayMs),
    ],
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

/** When the next pending event of a seller with a webhook falls due (null: none scheduled in the future). */
export async function nextDueAt(pool: Pool): Promise<Date | null> {
  const { rows } = await pool.query<{ at: Date | null }>(
    `SELECT min(n.at) AS at FROM seller_webhooks w CROSS JOIN LATERAL (
       SELECT e.next_attempt_at AS at FROM webhook_events e
       WHERE e.seller_id = w.seller_id AND e.state = 'pending' AND e.next_attempt_at > clock_timestamp()
       ORDER BY e.next_attempt_at LIMIT 1) n`,
  );
  return rows[0]?.at ?? null;
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
