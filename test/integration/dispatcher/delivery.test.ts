import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/lib/logger.js';
import type { DispatcherConfig } from '../../../dispatcher/config.js';
import { startDispatcher, type Dispatcher } from '../../../dispatcher/loop.js';
import { outboxGauges } from '../../../src/db/webhook-deliveries.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { eventually } from '../../support/eventually.js';
import { dispatcherMetricsText } from '../../support/dispatcher-metrics.js';
import { testDispatcherConfig } from '../../support/dispatcher-config.js';
import { addSeller, attemptRows, eventRow, insertEvents, receiverSet } from '../../support/outbox.js';
import { entryArgs } from '../../support/entry-points.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

let ctx: TestContext;
let dispatcher: Dispatcher | null = null;
const receivers = receiverSet();

beforeEach(async () => {
  ctx = await createTestContext();
});
afterEach(async () => {
  await dispatcher?.stop();
  dispatcher = null;
  await receivers.closeAll();
  await ctx.close();
});

const receiver = receivers.start;

async function dispatch(config: Partial<DispatcherConfig> = {}): Promise<Dispatcher> {
  dispatcher = await startDispatcher({
    pool: ctx.pool,
    databaseUrl: ctx.databaseUrl,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    config: testDispatcherConfig(config),
  });
  return dispatcher;
}

const headersOf = (r: { headers: Record<string, string | string[] | undefined> }) => r.headers as Record<string, string>;

describe('webhook dispatcher', () => {
  it('delivers every event with a Standard Webhooks signature (verified by standardwebhooks), the envelope and the stored data bytes', async () => {
    const rx = await receiver();
    const secret = await addSeller(ctx.pool, 1, rx.url);
    const events = await insertEvents(ctx.pool, [
      { sellerId: 1, type: 'order.created' },
      { sellerId: 1, type: 'order.cancelled' },
      {
        sellerId: 1,
        type: 'inventory.adjusted',
        data: '{"seller_id":1,"order_id":"o1","created_at":"2026-07-08T10:00:00.123Z","adjustments":[{"sku_id":5,"product_id":2,"quantity":1,"external_ref":null}]}',
      },
    ]);
    await dispatch();
    await eventually(async () => {
      expect(rx.received).toHaveLength(3);
      for (const e of events) expect((await eventRow(ctx.pool, e.eventId)).state).toBe('delivered');
    }, 10_000);

    const wh = new Webhook(secret);
    for (const e of events) {
      const r = rx.received.find((x) => x.headers['webhook-id'] === e.eventId)!;
      expect(r).toBeDefined();
      // The reference verifier checks the signature over the exact bytes received.
      const parsed = wh.verify(r.body, headersOf(r)) as Record<string, unknown>;
      expect(r.body).toBe(`{"id":"${e.eventId}","type":"${e.type}","api_version":"2026-07","created_at":"${e.createdAt.toISOString()}","data":${e.data}}`);
      expect(parsed).toEqual({ id: e.eventId, type: e.type, api_version: '2026-07', created_at: e.createdAt.toISOString(), data: JSON.parse(e.data) });
      expect(r.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
      // And a body changed by one byte does not verify.
      expect(() => wh.verify(r.body.replace('"data":{', '"data": {'), headersOf(r))).toThrow();
      expect((await attemptRows(ctx.pool, e.eventId)).map((a) => [a.attempt, a.status_code])).toEqual([[1, 200]]);
    }
    expect(() => new Webhook(`whsec_${Buffer.from('another key').toString('base64')}`).verify(rx.received[0]!.body, headersOf(rx.received[0]!))).toThrow();

    const text = await dispatcherMetricsText(dispatcher!.metrics, await outboxGauges(ctx.pool));
    expect(text).toContain('webhook_deliveries_total{outcome="delivered"} 3');
    expect(text).toContain('webhook_attempt_duration_seconds_count 3');
    expect(text).toContain('webhook_pending_events 0');
    expect(text).toContain('webhook_oldest_pending_seconds 0');
  });

  it('a receiver that fails the first attempts gets the same webhook-id and bytes again after each configured delay', async () => {
    const rx = await receiver((_r, n) => ({ status: n <= 2 ? 500 : 204, body: 'try later' }));
    const secret = await addSeller(ctx.pool, 1, rx.url);
    const [e] = await insertEvents(ctx.pool, [{ sellerId: 1 }]);
    await dispatch({ retryDelaysMs: [300, 700, 60_000] });
    await eventually(async () => expect((await eventRow(ctx.pool, e!.eventId)).state).toBe('delivered'), 15_000);

    expect(rx.received).toHaveLength(3);
    expect(new Set(rx.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([e!.eventId]));
    expect(new Set(rx.received.map((r) => r.body)).size).toBe(1);
    for (const r of rx.received) new Webhook(secret).verify(r.body, headersOf(r));
    // Each retry waits at least its delay, counted from when the failed attempt was recorded.
    expect(rx.received[1]!.at - rx.received[0]!.at).toBeGreaterThanOrEqual(300);
    expect(rx.received[2]!.at - rx.received[1]!.at).toBeGreaterThanOrEqual(700);
    const attempts = await attemptRows(ctx.pool, e!.eventId);
    expect(attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 500, 'try later'],
      [2, 500, 'try later'],
      [3, 204, null],
    ]);
  });

  it('an endpoint that always fails ends failed after the last delay; webhooks:redeliver sends it again', async () => {
    let healthy = false;
    const rx = await receiver(() => (healthy ? { status: 200 } : { status: 302, headers: { location: 'http://127.0.0.1:1/' } }));
    await addSeller(ctx.pool, 1, rx.url);
    const [e, other] = await insertEvents(ctx.pool, [{ sellerId: 1 }, { sellerId: 1 }]);
    await dispatch({ retryDelaysMs: [100, 200] });
    await eventually(async () => {
      expect((await eventRow(ctx.pool, e!.eventId)).state).toBe('failed');
      expect((await eventRow(ctx.pool, other!.eventId)).state).toBe('failed');
    }, 10_000);
    // One attempt plus one per delay; a 3xx is a failure and its Location is never followed.
    const attempts = await attemptRows(ctx.pool, e!.eventId);
    expect(attempts.map((a) => [a.attempt, a.status_code, a.error])).toEqual([
      [1, 302, 'redirect not followed'],
      [2, 302, 'redirect not followed'],
      [3, 302, 'redirect not followed'],
    ]);
    expect(await dispatcherMetricsText(dispatcher!.metrics, await outboxGauges(ctx.pool))).toContain('webhook_failed_events 2\n');
    expect(dispatcher!.metrics.deliveries).toEqual({ delivered: 0, retry: 4, failed: 2 });
    await new Promise((r) => setTimeout(r, 600));
    expect(rx.received).toHaveLength(6);
    expect(rx.received.every((r) => r.path === '/hook')).toBe(true);

    const env = { ...process.env, DATABASE_URL: ctx.databaseUrl, LOG_LEVEL: 'silent' };
    const redeliver = (...args: string[]) => run(process.execPath, [...entryArgs('scripts/webhooks-redeliver.ts'), ...args], { cwd: root, env });
    await expect(redeliver('--seller', 'nobody')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("no seller with code 'nobody'"),
    });
    await expect(redeliver('--seller', 's1', '--since', 'yesterday')).rejects.toMatchObject({
      code: 2,
    });
    // --since after both events: nothing to queue.
    const none = await redeliver('--seller', 's1', '--failed', '--since', new Date(Date.now() + 60_000).toISOString());
    expect(none.stdout).toContain("0 events of seller 's1' queued");

    healthy = true;
    const out = await redeliver('--seller', 's1', '--failed');
    expect(out.stdout).toContain("2 events of seller 's1' queued for delivery (failed only)");
    await eventually(async () => expect((await eventRow(ctx.pool, e!.eventId)).state).toBe('delivered'), 10_000);
    expect(rx.received.filter((r) => r.headers['webhook-id'] === e!.eventId)).toHaveLength(4);
    expect((await attemptRows(ctx.pool, e!.eventId)).map((a) => [a.attempt, a.status_code])).toEqual([
      [1, 302],
      [2, 302],
      [3, 302],
      [4, 200],
    ]);
  });

  it('a hanging receiver times out without delaying another seller, and holds at most its per-endpoint slots', async () => {
    const hang = await receiver(() => null);
    const fine = await receiver();
    await addSeller(ctx.pool, 1, hang.url);
    await addSeller(ctx.pool, 2, fine.url);
    // The hanging seller's events are older, so a FIFO without per-endpoint limits would send them first.
    const stuck = await insertEvents(
      ctx.pool,
      Array.from({ length: 8 }, () => ({ sellerId: 1 })),
    );
    await new Promise((r) => setTimeout(r, 5));
    const quick = await insertEvents(
      ctx.pool,
      Array.from({ length: 10 }, () => ({ sellerId: 2 })),
    );
    // Long enough that the quick seller's ten deliveries come first even on a stalled machine.
    await dispatch({ timeoutMs: 6000, perEndpoint: 2, concurrency: 6, retryDelaysMs: [60_000] });

    await eventually(async () => {
      for (const e of quick) expect((await eventRow(ctx.pool, e.eventId)).state).toBe('delivered');
    }, 10_000);
    const lastQuick = Math.max(...fine.received.map((r) => r.at));
    await eventually(async () => {
      const timedOut = (await Promise.all(stuck.map((e) => attemptRows(ctx.pool, e.eventId)))).flat();
      expect(timedOut.length).toBeGreaterThanOrEqual(2);
      for (const a of timedOut) expect(a.error).toBe('timeout after 6000 ms');
      // Every quick delivery arrived before the first hanging attempt had even timed out.
      const firstTimeout = Math.min(...timedOut.map((a) => a.started_at.getTime() + a.duration_ms));
      expect(lastQuick).toBeLessThan(firstTimeout);
    }, 30_000);
    expect(hang.maxOpen).toBeLessThanOrEqual(2);
    expect(fine.received).toHaveLength(10);
    const states = await Promise.all(stuck.map((e) => eventRow(ctx.pool, e.eventId)));
    expect(states.every((s) => s.state === 'pending')).toBe(true);
  });

  it('a seller without a webhook gets nothing (its events stay no_endpoint); a webhook removed later parks its pending events', async () => {
    const rx = await receiver();
    await addSeller(ctx.pool, 1, rx.url);
    await addSeller(ctx.pool, 3);
    await addSeller(ctx.pool, 4, rx.url.replace('/hook', '/gone'));
    const [silent] = await insertEvents(ctx.pool, [{ sellerId: 3 }]);
    const [orphan] = await insertEvents(ctx.pool, [{ sellerId: 4 }]);
    await ctx.pool.query('DELETE FROM seller_webhooks WHERE seller_id = 4');
    expect((await eventRow(ctx.pool, silent!.eventId)).state).toBe('no_endpoint');
    expect((await eventRow(ctx.pool, orphan!.eventId)).state).toBe('pending');

    await dispatch();
    const [marker] = await insertEvents(ctx.pool, [{ sellerId: 1 }]);
    await eventually(async () => expect((await eventRow(ctx.pool, marker!.eventId)).state).toBe('delivered'), 10_000);
    await eventually(async () => expect((await eventRow(ctx.pool, orphan!.eventId)).state).toBe('no_endpoint'), 10_000);
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([marker!.eventId]);
    expect((await eventRow(ctx.pool, silent!.eventId)).attempts).toBe(0);
    expect(await attemptRows(ctx.pool, silent!.eventId)).toEqual([]);
  });

  it('410 fails the event at once; Retry-After on 429/503 is honoured only when longer than the next delay', async () => {
    const gone = await receiver(() => ({ status: 410 }));
    const busy = await receiver((_r, n) => (n === 1 ? { status: 503, headers: { 'retry-after': '2' } } : { status: 200 }));
    const short = await receiver((_r, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '0' } } : { status: 200 }));
    await addSeller(ctx.pool, 1, gone.url);
    await addSeller(ctx.pool, 2, busy.url);
    await addSeller(ctx.pool, 3, short.url);
    const [g, b, s] = await insertEvents(ctx.pool, [{ sellerId: 1 }, { sellerId: 2 }, { sellerId: 3 }]);
    await dispatch({ retryDelaysMs: [400, 400, 400] });

    await eventually(async () => {
      expect((await eventRow(ctx.pool, g!.eventId)).state).toBe('failed');
      expect((await eventRow(ctx.pool, b!.eventId)).state).toBe('delivered');
      expect((await eventRow(ctx.pool, s!.eventId)).state).toBe('delivered');
    }, 15_000);
    expect(gone.received).toHaveLength(1);
    expect((await eventRow(ctx.pool, g!.eventId)).last_status).toBe(410);
    expect(busy.received).toHaveLength(2);
    expect(busy.received[1]!.at - busy.received[0]!.at).toBeGreaterThanOrEqual(2000);
    expect(short.received).toHaveLength(2);
    expect(short.received[1]!.at - short.received[0]!.at).toBeGreaterThanOrEqual(400);
  });

  it('with the private-network guard on, loopback and private URLs fail without any request arriving', async () => {
    const rx = await receiver();
    const port = new URL(rx.url).port;
    const urls = [
      `http://127.0.0.1:${port}/hook`,
      `http://localhost:${port}/hook`,
      `http://[::1]:${port}/hook`,
      `http://[::ffff:127.0.0.1]:${port}/hook`,
      `http://2130706433:${port}/hook`,
      `http://10.1.2.3:${port}/hook`,
      `http://169.254.169.254/latest/meta-data`,
    ];
    for (const [i, url] of urls.entries()) await addSeller(ctx.pool, i + 1, url);
    const events = await insertEvents(
      ctx.pool,
      urls.map((_u, i) => ({ sellerId: i + 1 })),
    );
    await dispatch({ allowPrivateNetworks: false, retryDelaysMs: [] });
    await eventually(async () => {
      for (const e of events) {
        const row = await eventRow(ctx.pool, e.eventId);
        expect(row.state).toBe('failed');
        expect(row.last_error).toMatch(/^refused .*internal .*WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow$/);
      }
    }, 10_000);
    expect(rx.received).toHaveLength(0);
  });

  it('an event due behind where the last claim of its seller ended (expired lease, late commit) is still delivered', async () => {
    const rx = await receiver();
    await addSeller(ctx.pool, 1, rx.url);
    await addSeller(ctx.pool, 2);
    const [first] = await insertEvents(ctx.pool, [{ sellerId: 1 }]);
    await dispatch();
    await eventually(async () => expect((await eventRow(ctx.pool, first!.eventId)).state).toBe('delivered'), 10_000);
    // Written without a NOTIFY (an UPDATE, as a lease passing is), due an hour before the first.
    const [behind] = await insertEvents(ctx.pool, [{ sellerId: 2 }]);
    await new Promise((r) => setTimeout(r, 300)); // the full walk that insert's NOTIFY asked for is done
    await ctx.pool.query(
      `UPDATE webhook_events SET seller_id = 1, state = 'pending', next_attempt_at = clock_timestamp() - interval '1 hour' WHERE event_id = $1`,
      [behind!.eventId],
    );
    await eventually(async () => expect((await eventRow(ctx.pool, behind!.eventId)).state).toBe('delivered'), 10_000);
    expect(rx.received.map((r) => r.headers['webhook-id'])).toEqual([first!.eventId, behind!.eventId]);
  });

  it('a graceful stop lets in-flight attempts finish and records them', async () => {
    const rx = await receiver(() => new Promise((r) => setTimeout(() => r({ status: 200 }), 400)));
    await addSeller(ctx.pool, 1, rx.url);
    const events = await insertEvents(
      ctx.pool,
      Array.from({ length: 3 }, () => ({ sellerId: 1 })),
    );
    const d = await dispatch();
    await eventually(() => expect(rx.received).toHaveLength(3), 10_000);
    await d.stop();
    dispatcher = null;
    for (const e of events) {
      const row = await eventRow(ctx.pool, e.eventId);
      expect(row.state).toBe('delivered');
      expect(row.locked_until).toBeNull();
    }
  });
});
