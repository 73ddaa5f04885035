import type { Pool } from './pool.js';
import { endpointStateSql, type EndpointState } from './webhook-endpoints.js';

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
  /** The endpoint's standing when claimed; `breaker_open`: this attempt is the endpoint's one probe. */
  endpointState: EndpointState;
}

export interface ClaimOptions {
  /** At most this many events in all. */
  limit: number;
  /** Of those, at most this many for endpoints that are not healthy (untried, degraded, breaker open). */
  unhealthyLimit: number;
  /** Per seller (one endpoint per seller): at most this many in flight in this dispatcher. */
  perEndpoint: number;
  /** Events this dispatcher has in flight, per seller; their slots are taken. */
  busy: ReadonlyMap<number, number>;
  leaseMs: number;
  /** Attempts in a row without an answer that open an endpoint's breaker. */
  breakerFailures: number;
  /** While the breaker is open, the wait after a failed attempt before the next probe. */
  breakerCooldownMs: number;
  /**
   * Per seller, start the walk of its due events here (events due earlier are not seen). Delivered
   * events leave dead entries at the front of the due index until they are cleaned, and each claim
   * would walk them again; a dispatcher passes where its last claim of that seller ended, and
   * claims without it (a full walk) often enough to find what lies behind (see dispatcher/claimer.ts).
   */
  from?: ReadonlyMap<number, Date>;
}

/**
 * Claims due pending events, fairly across endpoints (docs/webhooks.md "Fairness and the breaker"):
 * - per endpoint, its oldest due events up to its free slots (`perEndpoint` minus its attempts in
 *   flight here); an endpoint whose breaker is open gets one, its probe, only when no probe is in
 *   flight anywhere, none in flight here, and its cooldown has passed;
 * - round robin: every endpoint's first event before any endpoint's second, then by due time;
 * - endpoints not healthy take at most `unhealthyLimit` of them (they are ranked by turn, then by
 *   fewest failures in a row, so an untried endpoint is tried before a dead one is probed again);
 * - at most `limit` in all.
 * One statement, committed on return. The probe is taken under the endpoint's health row lock,
 * re-checked after a concurrent claim commits: across dispatchers one probe at a time.
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
    endpoint_state: EndpointState;
  }>({
    // Named: parsed and planned once per connection (planning this statement costs about as much as running it).
    name: 'webhook-claim',
    text: `WITH busy AS (
       SELECT * FROM unnest($3::int[], $4::int[]) AS b(seller_id, n)
     ), walk AS (
       SELECT * FROM unnest($6::int[], $7::timestamptz[]) AS f(seller_id, at)
     ), endpoints AS (
       SELECT w.seller_id, coalesce(busy.n, 0) AS busy, walk.at AS walk_from, coalesce(h.failures, 0) AS failures,
              ${endpointStateSql('h', '$9')} AS state,
              (h.probe_until IS NULL OR h.probe_until <= clock_timestamp())
                AND (h.last_failure_at IS NULL OR h.last_failure_at + $10::int * interval '1 millisecond' <= clock_timestamp()) AS may_probe
       FROM seller_webhooks w
       LEFT JOIN webhook_endpoint_health h ON h.seller_id = w.seller_id
       LEFT JOIN busy ON busy.seller_id = w.seller_id
       LEFT JOIN walk ON walk.seller_id = w.seller_id
     ), candidates AS (
       SELECT ep.seller_id, ep.state, ep.failures, c.event_id, c.next_attempt_at,
              row_number() OVER (PARTITION BY ep.seller_id ORDER BY c.next_attempt_at) AS turn
       FROM endpoints ep
       CROSS JOIN LATERAL (
         SELECT e.event_id, e.next_attempt_at FROM webhook_events e
         -- now() (this statement's start), not clock_timestamp(): a stable bound is an index
         -- condition, so an endpoint whose events are all due later costs no walk over them.
         WHERE e.seller_id = ep.seller_id AND e.state = 'pending' AND e.next_attempt_at <= now()
           AND e.next_attempt_at >= coalesce(ep.walk_from, '-infinity')
           AND (e.locked_until IS NULL OR e.locked_until <= clock_timestamp())
         ORDER BY e.next_attempt_at
         LIMIT CASE
           WHEN ep.state = 'healthy' THEN greatest($2::int - ep.busy, 0)
           WHEN ep.state = 'breaker_open' THEN CASE WHEN ep.may_probe AND ep.busy = 0 AND $8::int > 0 THEN 1 ELSE 0 END
           ELSE least(greatest($2::int - ep.busy, 0), $8::int) END
         FOR UPDATE OF e SKIP LOCKED
       ) c
     ), ranked AS (
       SELECT candidates.*,
              row_number() OVER (PARTITION BY state = 'healthy' ORDER BY turn, failures, next_attempt_at) AS rank_in_pool
       FROM candidates
     ), picked AS (
       SELECT seller_id, event_id, state FROM ranked
       WHERE state = 'healthy' OR rank_in_pool <= $8::int
       ORDER BY turn, next_attempt_at
       LIMIT $1
     ), probe_rows AS (
       -- Locked in seller order (no deadlock between claims); re-checked on the row's latest version
       -- when a concurrent claim or record changed it meanwhile.
       SELECT h.seller_id, p.event_id FROM webhook_endpoint_health h JOIN picked p ON p.seller_id = h.seller_id
       WHERE p.state = 'breaker_open' AND (h.probe_until IS NULL OR h.probe_until <= clock_timestamp())
         AND (h.last_failure_at IS NULL OR h.last_failure_at + $10::int * interval '1 millisecond' <= clock_timestamp())
       ORDER BY h.seller_id
       FOR UPDATE OF h
     ), probes AS (
       UPDATE webhook_endpoint_health h
       SET probe_event_id = pr.event_id, probe_attempt = e.attempts + 1,
           probe_until = clock_timestamp() + $5::int * interval '1 millisecond'
       FROM probe_rows pr, webhook_events e
       WHERE h.seller_id = pr.seller_id AND e.event_id = pr.event_id
       RETURNING h.seller_id
     )
     UPDATE webhook_events e
     SET attempts = e.attempts + 1, locked_until = clock_timestamp() + $5::int * interval '1 millisecond'
     FROM picked p, seller_webhooks w
     WHERE e.event_id = p.event_id AND w.seller_id = e.seller_id
       AND (p.state <> 'breaker_open' OR p.seller_id IN (SELECT seller_id FROM probes))
     RETURNING e.event_id, e.seller_id, e.type, e.api_version, e.created_at, e.next_attempt_at, e.data, e.attempts, e.round_start,
               w.url, w.secret, p.state AS endpoint_state`,
    values: [
      o.limit,
      o.perEndpoint,
      busySellers,
      busyCounts,
      o.leaseMs,
      fromSellers,
      fromAt,
      Math.max(o.unhealthyLimit, 0),
      o.breakerFailures,
      o.breakerCooldownMs,
    ],
  });
  // Started in due order (per endpoint, the order claimed).
  return rows
    .map((r) => ({
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
      endpointState: r.endpoint_state,
    }))
    .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
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
