import { namedParams } from './named-params.js';
import type { Pool } from './pool.js';
import { endpointStateSql, type EndpointState } from './webhook-endpoints.js';

// The claim of the webhook outbox (docs/webhooks.md "The loop" and "Fairness and the breaker"). A
// dispatcher claims due events with FOR UPDATE SKIP LOCKED and commits a lease (locked_until)
// BEFORE its HTTP call, so no transaction stays open across the network and another dispatcher
// skips the event until the lease passes. `attempts` is incremented by the claim and fences the
// result (src/db/webhook-deliveries.ts records it).
// Spec: test/integration/db/webhook-claim.test.ts, one case per rule below.

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
  /** The share of the dispatcher's slots this attempt holds (an untried endpoint may hold the unhealthy share's). */
  share: SlotShare;
}

/** The shares of a dispatcher's slots (docs/webhooks.md "Fairness and the breaker"). */
export type SlotShare = 'healthy' | 'untried' | 'unhealthy';

export interface ClaimOptions {
  /** At most this many events in all. */
  limit: number;
  /** Of those, at most this many for untried endpoints (one each: nothing has answered since the URL was set). */
  untriedLimit: number;
  /** Of those, at most this many for degraded and breaker-open endpoints, and untried ones beyond their own share. */
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

const P = namedParams({
  limit: 'int',
  untriedLimit: 'int',
  unhealthyLimit: 'int',
  perEndpoint: 'int',
  busySellers: 'int[]',
  busyCounts: 'int[]',
  walkSellers: 'int[]',
  walkFrom: 'timestamptz[]',
  leaseMs: 'int',
  breakerFailures: 'int',
  breakerCooldownMs: 'int',
});
const p = P.ref;
const afterMs = (ms: string) => `clock_timestamp() + ${ms} * interval '1 millisecond'`;

/** No probe of the endpoint whose health row is `h` is in flight anywhere, and its cooldown has passed. */
const mayProbe = (h: string) =>
  `(${h}.probe_until IS NULL OR ${h}.probe_until <= clock_timestamp())
   AND (${h}.last_failure_at IS NULL OR ${h}.last_failure_at + ${p.breakerCooldownMs} * interval '1 millisecond' <= clock_timestamp())`;

/**
 * The claim, one CTE per rule, in the order they apply. Each is a `name AS (...)` part of one
 * statement; the names say the rule.
 */
const RULES = {
  /** What this dispatcher already has in flight per seller (those slots are taken). */
  inFlightHere: `in_flight_here AS (
       SELECT * FROM unnest(${p.busySellers}, ${p.busyCounts}) AS b(seller_id, n)
     )`,
  /** Where each seller's walk of its due events starts (see ClaimOptions.from). */
  walkStart: `walk_start AS (
       SELECT * FROM unnest(${p.walkSellers}, ${p.walkFrom}) AS f(seller_id, at)
     )`,
  /** Each endpoint's standing (a missing health row reads as untried). */
  endpointStanding: `endpoint_standing AS (
       SELECT w.seller_id, coalesce(b.n, 0) AS busy, f.at AS walk_from, coalesce(h.failures, 0) AS failures,
              ${endpointStateSql('h', p.breakerFailures)} AS state,
              ${mayProbe('h')} AS may_probe
       FROM seller_webhooks w
       LEFT JOIN webhook_endpoint_health h ON h.seller_id = w.seller_id
       LEFT JOIN in_flight_here b ON b.seller_id = w.seller_id
       LEFT JOIN walk_start f ON f.seller_id = w.seller_id
     )`,
  /**
   * The share of the slots each endpoint draws from, and how many events it may take: healthy,
   * its free slots; untried, one attempt at a time (its probe) from the untried share; degraded,
   * its free slots from the unhealthy share; breaker open, its one probe from the unhealthy share,
   * only when none is in flight anywhere nor here and its cooldown has passed. Never more than its
   * share allows in all (an untried endpoint may also draw on the unhealthy share).
   */
  endpointSlots: `endpoint_slots AS (
       SELECT seller_id, state, failures, walk_from, share,
              least(share_limit, CASE
                WHEN state IN ('healthy', 'degraded') THEN greatest(${p.perEndpoint} - busy, 0)
                WHEN state = 'untried' THEN CASE WHEN busy = 0 THEN 1 ELSE 0 END
                ELSE CASE WHEN busy = 0 AND may_probe THEN 1 ELSE 0 END END) AS slots
       FROM endpoint_standing es
       CROSS JOIN LATERAL (
         SELECT CASE WHEN es.state IN ('healthy', 'untried') THEN es.state ELSE 'unhealthy' END AS share
       ) s
       CROSS JOIN LATERAL (
         SELECT CASE s.share WHEN 'healthy' THEN ${p.limit} WHEN 'untried' THEN ${p.untriedLimit} + ${p.unhealthyLimit}
                ELSE ${p.unhealthyLimit} END AS share_limit
       ) l
     )`,
  /**
   * Per endpoint, its oldest due events up to its slots, numbered by turn (its first, second...).
   * Due: pending, `next_attempt_at` passed, no live lease; rows another claim holds are skipped.
   */
  oldestDueFirst: `oldest_due_first AS (
       SELECT es.seller_id, es.state, es.share, es.failures, d.event_id, d.next_attempt_at,
              row_number() OVER (PARTITION BY es.seller_id ORDER BY d.next_attempt_at) AS turn
       FROM endpoint_slots es
       CROSS JOIN LATERAL (
         SELECT e.event_id, e.next_attempt_at FROM webhook_events e
         -- now() (this statement's start), not clock_timestamp(): a stable bound is an index
         -- condition, so an endpoint whose events are all due later costs no walk over them.
         WHERE e.seller_id = es.seller_id AND e.state = 'pending' AND e.next_attempt_at <= now()
           AND e.next_attempt_at >= coalesce(es.walk_from, '-infinity')
           AND (e.locked_until IS NULL OR e.locked_until <= clock_timestamp())
         ORDER BY e.next_attempt_at
         LIMIT es.slots
         FOR UPDATE OF e SKIP LOCKED
       ) d
     )`,
  /**
   * Untried endpoints beyond their own share draw on the unhealthy share, where they compete as
   * endpoints with no failure (the one due first first).
   */
  untriedOverflow: `untried_overflow AS (
       SELECT ranked.*, CASE WHEN share = 'untried' AND rank_in_share > ${p.untriedLimit} THEN 'unhealthy' ELSE share END AS drawn_from
       FROM (
         SELECT oldest_due_first.*, row_number() OVER (PARTITION BY share ORDER BY turn, next_attempt_at) AS rank_in_share
         FROM oldest_due_first
       ) ranked
     )`,
  /**
   * Each share holds at most its limit: within it, every endpoint's first event before any
   * endpoint's second, then fewer failures in a row (an untried endpoint before a degraded one,
   * a degraded one before a dead one's probe), then the older due time.
   */
  withinShares: `within_shares AS (
       SELECT * FROM (
         SELECT untried_overflow.*,
                row_number() OVER (PARTITION BY drawn_from ORDER BY turn, failures, next_attempt_at) AS rank_in_drawn
         FROM untried_overflow
       ) r
       WHERE rank_in_drawn <= CASE drawn_from WHEN 'healthy' THEN ${p.limit} WHEN 'untried' THEN ${p.untriedLimit} ELSE ${p.unhealthyLimit} END
     )`,
  /** Round robin across all shares, then by due time, up to the limit in all. */
  roundRobin: `round_robin AS (
       SELECT seller_id, event_id, state, drawn_from FROM within_shares
       ORDER BY turn, next_attempt_at
       LIMIT ${p.limit}
     )`,
  /**
   * A breaker-open endpoint's probe is taken under its health row's lock, re-checked on the row's
   * latest version when a concurrent claim or record changed it meanwhile: one probe at a time
   * across dispatchers. Rows are locked in seller order (no deadlock between claims).
   */
  probeLocks: `probe_locks AS (
       SELECT h.seller_id, r.event_id FROM webhook_endpoint_health h JOIN round_robin r ON r.seller_id = h.seller_id
       WHERE r.state = 'breaker_open' AND ${mayProbe('h')}
       ORDER BY h.seller_id
       FOR UPDATE OF h
     )`,
  /** The probe is recorded on the health row (its event, attempt and lease). */
  probesTaken: `probes_taken AS (
       UPDATE webhook_endpoint_health h
       SET probe_event_id = pl.event_id, probe_attempt = e.attempts + 1, probe_until = ${afterMs(p.leaseMs)}
       FROM probe_locks pl, webhook_events e
       WHERE h.seller_id = pl.seller_id AND e.event_id = pl.event_id
       RETURNING h.seller_id
     )`,
  /** Every event picked (a probe only if it was taken) gets its attempt number and lease. */
  leased: `UPDATE webhook_events e
     SET attempts = e.attempts + 1, locked_until = ${afterMs(p.leaseMs)}
     FROM round_robin r, seller_webhooks w
     WHERE e.event_id = r.event_id AND w.seller_id = e.seller_id
       AND (r.state <> 'breaker_open' OR r.seller_id IN (SELECT seller_id FROM probes_taken))
     RETURNING e.event_id, e.seller_id, e.type, e.api_version, e.created_at, e.next_attempt_at, e.data, e.attempts, e.round_start,
               w.url, w.secret, r.state AS endpoint_state, r.drawn_from AS share`,
};

const CLAIM_SQL = `WITH ${[
  RULES.inFlightHere,
  RULES.walkStart,
  RULES.endpointStanding,
  RULES.endpointSlots,
  RULES.oldestDueFirst,
  RULES.untriedOverflow,
  RULES.withinShares,
  RULES.roundRobin,
  RULES.probeLocks,
  RULES.probesTaken,
].join(', ')}
     ${RULES.leased}`;

/**
 * Claims due pending events, fairly across endpoints (docs/webhooks.md "Fairness and the breaker"),
 * by the rules of RULES above. One statement, committed on return. Started in due order.
 */
export async function claimDue(pool: Pool, o: ClaimOptions): Promise<ClaimedEvent[]> {
  if (o.limit <= 0) return [];
  const busySellers = [...o.busy.keys()];
  const walkSellers = o.from ? [...o.from.keys()] : [];
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
    share: SlotShare;
  }>({
    // Named: parsed and planned once per connection (planning this statement costs about as much as running it).
    name: 'webhook-claim',
    text: CLAIM_SQL,
    values: P.values({
      limit: o.limit,
      untriedLimit: Math.max(o.untriedLimit, 0),
      unhealthyLimit: Math.max(o.unhealthyLimit, 0),
      perEndpoint: o.perEndpoint,
      busySellers,
      busyCounts: busySellers.map((s) => o.busy.get(s)!),
      walkSellers,
      walkFrom: walkSellers.map((s) => o.from!.get(s)!),
      leaseMs: o.leaseMs,
      breakerFailures: o.breakerFailures,
      breakerCooldownMs: o.breakerCooldownMs,
    }),
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
      share: r.share,
    }))
    .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
}
