import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { eventually } from '../../support/eventually.js';
import { killHard } from '../../support/indexer-process.js';
import { exited, spawnDispatcher } from '../../support/dispatcher-process.js';
import { addSeller, insertEvents, startReceiver, type Receiver } from '../../support/outbox.js';

// `npm run webhooks` as real child processes against a real PostgreSQL and real receivers.

let ctx: TestContext;
const children: ChildProcess[] = [];
const receivers: Receiver[] = [];

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx.close();
});
afterEach(async () => {
  await Promise.all(children.splice(0).map(killHard));
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await ctx.pool.query('TRUNCATE webhook_events CASCADE; DELETE FROM seller_webhooks; DELETE FROM sellers');
});

function dispatcherEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: ctx.databaseUrl,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100',
    WEBHOOK_POLL_MS: '100',
    WEBHOOK_CONCURRENCY: '16',
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: '4',
    ...extra,
  };
}

function start(extra: Record<string, string> = {}): ChildProcess {
  const c = spawnDispatcher(dispatcherEnv(extra));
  children.push(c);
  return c;
}

/** A receiver that answers 200 after `delayMs` and tracks requests open per webhook-id. */
async function trackingReceiver(delayMs: number) {
  const openById = new Map<string, number>();
  let overlaps = 0;
  const rx = await startReceiver(async (r) => {
    const id = String(r.headers['webhook-id']);
    const n = (openById.get(id) ?? 0) + 1;
    openById.set(id, n);
    if (n > 1) overlaps += 1;
    await new Promise((res) => setTimeout(res, delayMs));
    openById.set(id, openById.get(id)! - 1);
    return { status: 200 };
  });
  receivers.push(rx);
  return { rx, overlaps: () => overlaps };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function states(): Promise<Record<string, number>> {
  const { rows } = await ctx.pool.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM webhook_events GROUP BY state`);
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

describe('webhook dispatcher faults', () => {
  it('SIGKILL mid-delivery, restart: every event arrives at least once (duplicates counted, none lost)', async () => {
    // From the 61st request on, the receiver holds every request open until the kill, so the
    // process dies with attempts in flight: killing it at some moment of a free run could fall
    // between one wave of attempts being recorded and the next claim, with nothing leased.
    let holding = true;
    const rx = await startReceiver(async (_r, n) => {
      if (holding && n > 60) return null;
      await new Promise((res) => setTimeout(res, 40));
      return { status: 200 };
    });
    receivers.push(rx);
    for (const s of [1, 2, 3]) await addSeller(ctx.pool, s, rx.url);
    const events = await insertEvents(
      ctx.pool,
      Array.from({ length: 240 }, (_v, i) => ({ sellerId: 1 + (i % 3) })),
    );

    // A timeout well above the time from the 61st request to the kill: the held attempts are
    // still in flight (leased, unrecorded) when the process dies.
    const first = start({ WEBHOOK_TIMEOUT_MS: '3000' });
    await eventually(() => expect(rx.received.length).toBeGreaterThan(60), 30_000, 10);
    await killHard(first);
    holding = false;
    // What the killed process had claimed and not recorded: still leased, and nobody else runs.
    const { rows } = await ctx.pool.query<{ event_id: string }>(
      `SELECT event_id FROM webhook_events WHERE state = 'pending' AND locked_until > clock_timestamp()`,
    );
    const leasedAtKill = new Set(rows.map((r) => r.event_id));
    expect(leasedAtKill.size).toBeGreaterThan(0);
    const receivedAtKill = rx.received.length;
    expect(receivedAtKill).toBeLessThan(events.length);

    start();
    await eventually(async () => expect(await states()).toEqual({ delivered: events.length }), 60_000);

    const counts = new Map<string, number>();
    for (const r of rx.received) counts.set(String(r.headers['webhook-id']), (counts.get(String(r.headers['webhook-id'])) ?? 0) + 1);
    const lost = events.filter((e) => !counts.has(e.eventId));
    const duplicates = rx.received.length - counts.size;
    console.log(
      `[webhooks fault] ${events.length} events, ${leasedAtKill.size} leased at SIGKILL, ${rx.received.length} requests received, ${duplicates} duplicates, ${lost.length} lost`,
    );
    expect(lost).toEqual([]);
    expect(counts.size).toBe(events.length);
    // Only what the killed process had claimed and not recorded can arrive twice, and at most twice.
    const twice = [...counts].filter(([, n]) => n > 1);
    expect(twice.every(([id, n]) => leasedAtKill.has(id) && n === 2)).toBe(true);
  });

  it('two dispatchers at once never send one attempt twice, nor one event concurrently', async () => {
    const { rx, overlaps } = await trackingReceiver(15);
    for (const s of [1, 2, 3, 4]) await addSeller(ctx.pool, s, rx.url);
    const events = await insertEvents(
      ctx.pool,
      Array.from({ length: 400 }, (_v, i) => ({ sellerId: 1 + (i % 4) })),
    );
    // A timeout far above the receiver's 15 ms: a stalled machine must not turn an answer into a retry.
    start({ WEBHOOK_CONCURRENCY: '8', WEBHOOK_TIMEOUT_MS: '10000' });
    start({ WEBHOOK_CONCURRENCY: '8', WEBHOOK_TIMEOUT_MS: '10000' });
    await eventually(async () => expect(await states()).toEqual({ delivered: events.length }), 60_000);
    expect(overlaps()).toBe(0);
    // Every event sent exactly once: no retries were needed and no claim was taken twice.
    expect(rx.received).toHaveLength(events.length);
    const { rows } = await ctx.pool.query<{ attempts: number; n: number }>(`SELECT attempts, count(*)::int AS n FROM webhook_events GROUP BY attempts`);
    expect(rows).toEqual([{ attempts: 1, n: events.length }]);
    const logged = await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_attempts`);
    expect(logged.rows[0]!.n).toBe(events.length);
  });

  it('metrics while running; SIGTERM lets in-flight attempts finish, records them and exits 0, a second SIGTERM changing nothing', async () => {
    // Answers slow enough that the metrics read below still finds all four in flight on a loaded machine.
    const { rx } = await trackingReceiver(3000);
    await addSeller(ctx.pool, 1, rx.url);
    // It has answered before (a new endpoint is tried one attempt at a time): its four slots are open.
    await ctx.pool.query(`UPDATE webhook_endpoint_health SET answered_at = now() WHERE seller_id = 1`);
    const events = await insertEvents(
      ctx.pool,
      Array.from({ length: 4 }, () => ({ sellerId: 1 })),
    );
    const port = await freePort();
    const child = start({ WEBHOOK_METRICS_PORT: String(port), WEBHOOK_TIMEOUT_MS: '10000' });
    await eventually(() => expect(rx.received).toHaveLength(4), 30_000);
    const inFlight = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(inFlight).toContain('webhook_attempts_in_flight 4');
    expect(inFlight).toContain('webhook_pending_events 4');
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGTERM');
    expect(await exited(child)).toEqual({ code: 0, signal: null });
    expect(await states()).toEqual({ delivered: events.length });
    const { rows } = await ctx.pool.query(`SELECT 1 FROM webhook_events WHERE locked_until IS NOT NULL`);
    expect(rows).toEqual([]);
  });
});
