import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimDue, type ClaimOptions } from '../../../src/db/webhook-claim.js';
import type { EndpointState } from '../../../src/db/webhook-endpoints.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { addSeller } from '../../support/outbox.js';

// The claim's rules (docs/webhooks.md "Fairness and the breaker"), each with the smallest data that
// shows it, against the real statement in PostgreSQL. Event ids are `<seller>-<k>`: k counts up in
// due order.

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());
beforeEach(async () => {
  await ctx.pool.query(`DELETE FROM webhook_events WHERE seller_id >= 9000`);
  await ctx.pool.query(`DELETE FROM seller_webhooks WHERE seller_id >= 9000`);
  await ctx.pool.query(`DELETE FROM sellers WHERE seller_id >= 9000`);
});

const BREAKER_FAILURES = 3;

/** A seller with a webhook whose endpoint has this standing (breaker open: its cooldown passed, no probe in flight). */
async function endpoint(sellerId: number, standing: EndpointState, health: { failures?: number; lastFailureAgoMs?: number } = {}) {
  await addSeller(ctx.pool, sellerId, `http://127.0.0.1:9/${sellerId}`);
  const failures = health.failures ?? { healthy: 0, untried: 0, degraded: 1, breaker_open: BREAKER_FAILURES }[standing];
  await ctx.pool.query(
    `UPDATE webhook_endpoint_health SET failures = $2,
       answered_at = CASE WHEN $3 THEN now() - interval '1 hour' END,
       last_failure_at = CASE WHEN $2 > 0 THEN clock_timestamp() - $4::int * interval '1 millisecond' END
     WHERE seller_id = $1`,
    [sellerId, failures, standing !== 'untried', health.lastFailureAgoMs ?? 3_600_000],
  );
}

/** `n` pending events of a seller, due `agoS`, `agoS - 1`, ... seconds ago (all in the past). */
async function due(sellerId: number, n: number, agoS = 100): Promise<void> {
  await ctx.pool.query(
    `INSERT INTO webhook_events (event_id, seller_id, type, created_at, data, state, next_attempt_at)
     SELECT $1 || '-' || k, $1::int, 'order.created', now(), '{}', 'pending', now() - ($2::int - k) * interval '1 second'
     FROM generate_series(1, $3::int) k`,
    [sellerId, agoS, n],
  );
}

async function claim(o: Partial<ClaimOptions> = {}): Promise<string[]> {
  return (await claimShares(o)).map((e) => e.split(' ')[0]!);
}

/** Each claimed event as `<id> <share of the slots it holds>`. */
async function claimShares(o: Partial<ClaimOptions> = {}): Promise<string[]> {
  const claimed = await claimDue(ctx.pool, {
    limit: 100,
    untriedLimit: 10,
    unhealthyLimit: 10,
    perEndpoint: 4,
    busy: new Map(),
    leaseMs: 60_000,
    breakerFailures: BREAKER_FAILURES,
    breakerCooldownMs: 30_000,
    ...o,
  });
  return claimed.map((e) => `${e.eventId} ${e.share}`);
}

const byTurn = (ids: string[]) => [...ids].sort();

describe('claimDue', () => {
  it('takes only due events: pending, due by now, with no live lease', async () => {
    await endpoint(9001, 'healthy');
    await due(9001, 5);
    await ctx.pool.query(`UPDATE webhook_events SET next_attempt_at = now() + interval '1 minute' WHERE event_id = '9001-2'`);
    await ctx.pool.query(`UPDATE webhook_events SET state = 'delivered' WHERE event_id = '9001-3'`);
    await ctx.pool.query(`UPDATE webhook_events SET locked_until = now() + interval '1 minute' WHERE event_id = '9001-4'`);
    await ctx.pool.query(`UPDATE webhook_events SET locked_until = now() - interval '1 second' WHERE event_id = '9001-5'`);
    expect(await claim()).toEqual(['9001-1', '9001-5']);
  });

  it('leases what it takes: the attempt number moves on, and the next claim skips it until the lease passes', async () => {
    await endpoint(9001, 'healthy');
    await due(9001, 1);
    const [e] = await claimDue(ctx.pool, {
      limit: 1,
      untriedLimit: 0,
      unhealthyLimit: 0,
      perEndpoint: 1,
      busy: new Map(),
      leaseMs: 60_000,
      breakerFailures: BREAKER_FAILURES,
      breakerCooldownMs: 0,
    });
    expect(e).toMatchObject({ eventId: '9001-1', attempt: 1, endpointState: 'healthy', share: 'healthy', url: 'http://127.0.0.1:9/9001' });
    const { rows } = await ctx.pool.query<{ attempts: number; lease_s: number }>(
      `SELECT attempts, extract(epoch FROM locked_until - now())::float8 AS lease_s FROM webhook_events WHERE event_id = '9001-1'`,
    );
    expect(rows[0]!.attempts).toBe(1);
    expect(rows[0]!.lease_s).toBeGreaterThan(50);
    expect(rows[0]!.lease_s).toBeLessThanOrEqual(60);
    expect(await claim()).toEqual([]);
  });

  it('gives an endpoint its oldest due events, up to its slots not already in flight here', async () => {
    await endpoint(9001, 'healthy');
    await due(9001, 5);
    expect(await claim({ perEndpoint: 3, busy: new Map([[9001, 1]]) })).toEqual(['9001-1', '9001-2']);
  });

  it("goes round robin: every endpoint's first event before any endpoint's second, then by due time, up to the limit", async () => {
    await endpoint(9001, 'healthy');
    await endpoint(9002, 'healthy');
    await due(9001, 3, 100); // due 99, 98, 97 s ago
    await due(9002, 2, 50); // due 49, 48 s ago
    // By due time alone it would be 9001's three. Returned in due order, as they are started.
    expect(await claim({ limit: 3 })).toEqual(['9001-1', '9001-2', '9002-1']);
  });

  it('lets degraded and breaker-open endpoints hold at most the unhealthy share; healthy endpoints are not counted against it', async () => {
    await endpoint(9001, 'degraded');
    await endpoint(9002, 'degraded');
    await endpoint(9003, 'healthy');
    for (const s of [9001, 9002, 9003]) await due(s, 3);
    const ids = await claimShares({ unhealthyLimit: 2 });
    expect(byTurn(ids)).toEqual(['9001-1 unhealthy', '9002-1 unhealthy', '9003-1 healthy', '9003-2 healthy', '9003-3 healthy']);
  });

  it("puts fewer failures in a row first in the unhealthy share: a degraded endpoint before a dead one's probe", async () => {
    await endpoint(9001, 'breaker_open', { failures: 7 });
    await endpoint(9002, 'degraded', { failures: 1 });
    await due(9001, 1, 100); // due earlier
    await due(9002, 1, 10);
    expect(await claim({ unhealthyLimit: 1 })).toEqual(['9002-1']);
  });

  it('tries an untried endpoint one attempt at a time', async () => {
    await endpoint(9001, 'untried');
    await due(9001, 3);
    expect(await claim()).toEqual(['9001-1']);
    await ctx.pool.query(`UPDATE webhook_events SET locked_until = NULL`);
    expect(await claim({ busy: new Map([[9001, 1]]) })).toEqual([]);
  });

  it('gives untried endpoints a share of their own: a full unhealthy share does not hold them back', async () => {
    await endpoint(9001, 'degraded', { failures: 1 });
    await endpoint(9002, 'untried');
    await due(9001, 1, 100);
    await due(9002, 1, 10);
    expect(await claimShares({ unhealthyLimit: 0, untriedLimit: 1 })).toEqual(['9002-1 untried']);
  });

  it('lets untried endpoints hold at most the untried share, the one due first going first', async () => {
    await endpoint(9001, 'untried');
    await endpoint(9002, 'untried');
    await due(9002, 1, 100);
    await due(9001, 1, 10);
    expect(await claim({ untriedLimit: 1, unhealthyLimit: 0 })).toEqual(['9002-1']);
    expect(await claim({ untriedLimit: 0, unhealthyLimit: 0 })).toEqual([]);
  });

  it("lets untried endpoints beyond their share draw on the unhealthy share's room, before a degraded endpoint", async () => {
    await endpoint(9001, 'untried');
    await endpoint(9002, 'untried');
    await endpoint(9003, 'degraded');
    await due(9003, 1, 200);
    await due(9001, 1, 100);
    await due(9002, 1, 50);
    expect(await claimShares({ untriedLimit: 1, unhealthyLimit: 1 })).toEqual(['9001-1 untried', '9002-1 unhealthy']);
  });

  it('probes an open breaker with its event due first, and records the probe on its health row: one at a time', async () => {
    await endpoint(9001, 'breaker_open');
    await due(9001, 3);
    expect(await claim()).toEqual(['9001-1']);
    const { rows } = await ctx.pool.query<{ probe_event_id: string; probe_attempt: number; probe_s: number }>(
      `SELECT probe_event_id, probe_attempt, extract(epoch FROM probe_until - now())::float8 AS probe_s FROM webhook_endpoint_health WHERE seller_id = 9001`,
    );
    expect(rows[0]).toMatchObject({ probe_event_id: '9001-1', probe_attempt: 1 });
    expect(rows[0]!.probe_s).toBeGreaterThan(50);
    // The probe is in flight (in some dispatcher): no other event of it is taken.
    expect(await claim()).toEqual([]);
  });

  it('probes an open breaker only once its cooldown has passed and while nothing of it is in flight here', async () => {
    await endpoint(9001, 'breaker_open', { lastFailureAgoMs: 1000 });
    await endpoint(9002, 'breaker_open');
    await due(9001, 1);
    await due(9002, 1);
    expect(await claim({ breakerCooldownMs: 30_000, busy: new Map([[9002, 1]]) })).toEqual([]);
    expect(await claim({ breakerCooldownMs: 500 })).toEqual(['9001-1', '9002-1']);
  });

  it("starts a seller's walk where the dispatcher says (events due earlier are not seen)", async () => {
    await endpoint(9001, 'healthy');
    await due(9001, 3);
    const { rows } = await ctx.pool.query<{ at: Date }>(`SELECT next_attempt_at AS at FROM webhook_events WHERE event_id = '9001-2'`);
    expect(await claim({ from: new Map([[9001, rows[0]!.at]]) })).toEqual(['9001-2', '9001-3']);
  });
});
