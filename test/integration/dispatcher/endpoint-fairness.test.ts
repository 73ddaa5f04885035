import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DispatcherConfig } from '../../../dispatcher/config.js';
import { startDispatcher, type Dispatcher } from '../../../dispatcher/loop.js';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { outboxGauges } from '../../../src/db/webhook-deliveries.js';
import { endpointGauges } from '../../../src/db/webhook-endpoints.js';
import { createLogger } from '../../../src/lib/logger.js';
import { checkoutOrder } from '../../../src/orders/checkout.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { testDispatcherConfig } from '../../support/dispatcher-config.js';
import { eventually } from '../../support/eventually.js';
import { addSeller, attemptRows, insertEvents, newSecret, receiverSet, type Received, type Receiver, type TestEvent } from '../../support/outbox.js';
import { CUSTOMER } from '../../support/seller-api.js';
import { MAPLE, seedSellerApi } from '../../support/seller-seed.js';
import { dispatcherMetricsText } from '../../support/dispatcher-metrics.js';

// Fairness across endpoints (docs/webhooks.md "Fairness and the breaker"), with real receivers on
// loopback and a real PostgreSQL: endpoints that never answer must not hold back a healthy one,
// whatever their number and however many dispatchers run; their events wait, none lost; an
// endpoint that answers again gets its backlog.

let ctx: TestContext;
const dispatchers: Dispatcher[] = [];
const pools: Pool[] = [];
const receivers = receiverSet();

beforeEach(async () => {
  ctx = await createTestContext();
});
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
  await Promise.all(pools.splice(0).map((p) => p.end()));
  await receivers.closeAll();
  await ctx.close();
});

const receiver = receivers.start;

/** A dispatcher with its own pool, as a separate process would have. */
async function dispatch(config: Partial<DispatcherConfig>): Promise<Dispatcher> {
  const pool = createPool(ctx.databaseUrl, 4);
  pools.push(pool);
  const d = await startDispatcher({
    pool,
    databaseUrl: ctx.databaseUrl,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    config: testDispatcherConfig(config),
  });
  dispatchers.push(d);
  return d;
}

const pct = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;

async function health(sellerId: number) {
  const { rows } = await ctx.pool.query<{ failures: number; answered_at: Date | null; probe_until: Date | null }>(
    `SELECT failures, answered_at, probe_until FROM webhook_endpoint_health WHERE seller_id = $1`,
    [sellerId],
  );
  return rows[0]!;
}

async function allDelivered(): Promise<void> {
  await eventually(
    async () => {
      const { rows } = await ctx.pool.query(`SELECT 1 FROM webhook_events WHERE state <> 'delivered'`);
      expect(rows).toEqual([]);
    },
    20_000,
    50,
  );
}

/**
 * Sellers 1000.. whose webhooks point at one receiver that never answers (a path each), each with
 * `backlog` events. New endpoints (untried), or `known` to hang: their last attempt got no answer.
 */
async function hangingSellers(n: number, backlog: number, known = false): Promise<{ rx: Receiver; sellers: number[]; events: TestEvent[] }> {
  const rx = await receiver(() => null);
  const sellers = Array.from({ length: n }, (_v, i) => 1000 + i);
  for (const s of sellers) await addSeller(ctx.pool, s, `${rx.url}/${s}`);
  if (known) await ctx.pool.query(`UPDATE webhook_endpoint_health SET failures = 1, last_failure_at = now() WHERE seller_id = ANY($1::int[])`, [sellers]);
  const events = await insertEvents(
    ctx.pool,
    sellers.flatMap((sellerId) => Array.from({ length: backlog }, () => ({ sellerId }))),
  );
  return { rx, sellers, events };
}

/**
 * The scenario of the fairness tests: a healthy seller (its endpoint has answered before), then 40
 * sellers whose endpoints never answer, each with a backlog, and the healthy seller committing 100
 * orders through checkout while the dispatchers work. Returns each order's commit-to-delivery time.
 */
async function fairnessScenario(dispatcherCount: number, config: Partial<DispatcherConfig>) {
  await seedSellerApi(ctx);
  const sku = 7001;
  await ctx.pool.query(`INSERT INTO skus (sku_id, product_id, condition, language, finish) VALUES ($1, 101, 'Near Mint', 'English', NULL)`, [sku]);
  await ctx.pool.query(
    `INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, external_ref, match_status) VALUES ($1, $2, 101, 500, 10000, 'ext', 'matched')`,
    [MAPLE, sku],
  );
  const arrivals = new Map<string, number>();
  const healthy = await receiver((r) => {
    const orderId = (JSON.parse(r.body) as { data: { order_id: string } }).data.order_id;
    if (!arrivals.has(orderId)) arrivals.set(orderId, r.at);
    return { status: 200 };
  });
  await ctx.pool.query(`INSERT INTO seller_webhooks (seller_id, url, secret) VALUES ($1, $2, $3)`, [MAPLE, healthy.url, newSecret()]);

  const order = (orderId: string) =>
    checkoutOrder(ctx.pool, {
      orderId,
      sellerId: MAPLE,
      currency: 'CAD',
      customer: CUSTOMER,
      shippingMethod: 'Tracked',
      lines: [{ skuId: sku, quantity: 1 }],
    });

  for (let i = 0; i < dispatcherCount; i++) await dispatch(config);
  // The healthy endpoint has answered before: it is in good standing.
  await order('ord_first');
  await eventually(() => expect(arrivals.has('ord_first')).toBe(true), 10_000);
  await eventually(async () => expect((await health(MAPLE)).answered_at).not.toBeNull(), 10_000);

  const hanging = await hangingSellers(40, 10);
  const committed = new Map<string, number>();
  const started = Date.now();
  for (let i = 0; i < 100; i++) {
    const due = started + i * 40; // 25 orders a second
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    const orderId = `ord_${i}`;
    await order(orderId);
    committed.set(orderId, Date.now());
  }
  await eventually(() => expect([...committed.keys()].filter((id) => !arrivals.has(id))).toEqual([]), 30_000);
  const latencies = [...committed].map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
  return { healthy, hanging, latencies, committed };
}

/** Every hanging event is still there, pending, under its own id, and each retry waited for its delay. */
async function expectHangingEventsKeptOnSchedule(events: readonly TestEvent[], retryDelaysMs: readonly number[]): Promise<number> {
  const ids = events.map((e) => e.eventId);
  const { rows } = await ctx.pool.query<{ event_id: string; state: string }>(
    `SELECT event_id, state FROM webhook_events WHERE seller_id = ANY($1::int[])`,
    [[...new Set(events.map((e) => e.sellerId))]],
  );
  expect(rows.map((r) => r.event_id).sort()).toEqual([...ids].sort());
  expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['pending']));
  let attempts = 0;
  for (const id of ids) {
    const log = await attemptRows(ctx.pool, id);
    attempts += log.length;
    for (const [k, a] of log.entries()) {
      expect(a.attempt).toBe(k + 1);
      expect(a.status_code).toBeNull();
      if (k === 0) continue;
      // The next attempt was due `delay` after the previous one was recorded (after it ended).
      const prev = log[k - 1]!;
      const earliest = prev.started_at.getTime() + prev.duration_ms + retryDelaysMs[k - 1]!;
      expect(a.started_at.getTime(), `${id} attempt ${a.attempt}`).toBeGreaterThanOrEqual(earliest - 2);
    }
  }
  return attempts;
}

const fairnessConfig = {
  concurrency: 64,
  untriedConcurrency: 8,
  unhealthyConcurrency: 16,
  perEndpoint: 4,
  timeoutMs: 1000,
  retryDelaysMs: [500, 1000, 2000, 4000, 8000, 16_000, 32_000],
  breakerFailures: 3,
  breakerCooldownMs: 500,
} satisfies Partial<DispatcherConfig>;

describe('webhook delivery stays fair when endpoints hang', () => {
  for (const dispatcherCount of [1, 2]) {
    it(`40 endpoints that never answer, with backlogs, do not delay a healthy seller's 100 orders (${dispatcherCount} dispatcher${dispatcherCount > 1 ? 's' : ''}); their events wait, none lost`, async () => {
      const { healthy, hanging, latencies, committed } = await fairnessScenario(dispatcherCount, fairnessConfig);

      // The dead endpoints' breakers all open; the metrics show which sellers they are.
      await eventually(
        async () => {
          const g = await endpointGauges(ctx.pool, fairnessConfig.breakerFailures);
          expect(g.byState.breaker_open.endpoints).toBe(40);
        },
        60_000,
        200,
      );
      const attempts = await expectHangingEventsKeptOnSchedule(hanging.events, fairnessConfig.retryDelaysMs);
      const g = await endpointGauges(ctx.pool, fairnessConfig.breakerFailures);
      const text = await dispatcherMetricsText(dispatchers[0]!.metrics, await outboxGauges(ctx.pool), g);
      expect(text).toContain('webhook_endpoints{state="breaker_open"} 40\n');
      expect(text).toContain('webhook_endpoints{state="healthy"} 1\n');
      expect(text).toContain('webhook_pending_events_by_endpoint_state{state="breaker_open"} 400\n');
      expect(text).toContain('webhook_pending_events_by_endpoint_state{state="healthy"} 0\n');
      expect(text).toContain(`webhook_breaker_open_pending_events{seller="s${hanging.sellers[0]}"} 10\n`);
      expect(text).toMatch(/webhook_attempts_in_flight_by_endpoint_state\{state="breaker_open"\} [0-9]+\n/);

      const p = (q: number) => pct(latencies, q);
      console.log(
        `[fairness, ${dispatcherCount} dispatcher(s)] healthy commit-to-delivery over ${latencies.length} orders: ` +
          `p50 ${p(0.5)} ms, p90 ${p(0.9)} ms, p99 ${p(0.99)} ms, max ${latencies.at(-1)} ms; ` +
          `${attempts} attempts to the 40 hanging endpoints, at most ${hanging.rx.maxOpen} open at once`,
      );
      expect(p(0.99)).toBeLessThanOrEqual(1000);
      // Endpoints not healthy never held more than their shares of any dispatcher's slots.
      expect(hanging.rx.maxOpen).toBeLessThanOrEqual((fairnessConfig.untriedConcurrency + fairnessConfig.unhealthyConcurrency) * dispatcherCount);
      // Each order's event arrived once and was recorded delivered at its first attempt.
      const ids = healthy.received.map((r) => String(r.headers['webhook-id']));
      expect(new Set(ids).size).toBe(ids.length);
      const { rows } = await ctx.pool.query<{ state: string; attempts: number; n: number }>(
        `SELECT state, attempts, count(*)::int AS n FROM webhook_events WHERE seller_id = $1 GROUP BY 1, 2`,
        [MAPLE],
      );
      expect(rows).toEqual([{ state: 'delivered', attempts: 1, n: committed.size + 1 }]);
    });
  }

  it('more dead endpoints than slots still leave a healthy endpoint its slots', async () => {
    const arrivals = new Map<string, number>();
    const fine = await receiver((r) => {
      arrivals.set(String(r.headers['webhook-id']), r.at);
      return { status: 200 };
    });
    await addSeller(ctx.pool, 1, fine.url);
    await dispatch({
      concurrency: 8,
      untriedConcurrency: 1,
      unhealthyConcurrency: 2,
      perEndpoint: 4,
      timeoutMs: 2000,
      breakerFailures: 2,
      retryDelaysMs: [60_000],
    });
    const [first] = await insertEvents(ctx.pool, [{ sellerId: 1 }]);
    await eventually(() => expect(arrivals.has(first!.eventId)).toBe(true), 10_000);

    // 12 endpoints that never answer (each could take 4 of the 8 slots), then the healthy seller's events.
    const hanging = await hangingSellers(12, 4);
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const [e] = await insertEvents(ctx.pool, [{ sellerId: 1 }]);
      const committed = Date.now();
      await eventually(() => expect(arrivals.has(e!.eventId)).toBe(true), 10_000, 5);
      latencies.push(arrivals.get(e!.eventId)! - committed);
      await new Promise((r) => setTimeout(r, 50));
    }
    latencies.sort((a, b) => a - b);
    console.log(`[fairness, 12 dead endpoints, 8 slots] healthy commit-to-delivery: p50 ${pct(latencies, 0.5)} ms, max ${latencies.at(-1)} ms`);
    // Starved, an event would wait for a hanging attempt to time out (2 s) before it got a slot.
    expect(latencies.at(-1)).toBeLessThan(2000);
    expect(hanging.rx.maxOpen).toBeLessThanOrEqual(1 + 2);
  });

  for (const hangingKnown of [true, false])
    it(`a new endpoint beside 40 endpoints that hang (${hangingKnown ? 'known to hang' : 'new too, once each has been tried'}) gets its events within 1 s of commit (p99), as a known healthy one does`, async () => {
      const arrivals = new Map<string, number>();
      const answer = (r: Received) => {
        arrivals.set(String(r.headers['webhook-id']), r.at);
        return { status: 200 };
      };
      const known = await receiver(answer);
      await addSeller(ctx.pool, 1, known.url);
      // Attempts that hang hold their slot for the whole timeout: waiting behind one would cost 5 s.
      const config = { ...fairnessConfig, timeoutMs: 5000 };
      await dispatch(config);
      const [first] = await insertEvents(ctx.pool, [{ sellerId: 1 }]);
      await eventually(() => expect(arrivals.has(first!.eventId)).toBe(true), 10_000);
      await eventually(async () => expect((await health(1)).answered_at).not.toBeNull(), 10_000);

      // 40 endpoints that hang, with backlogs: known to (their last attempt got no answer), or new
      // and each tried once (in the untried share and the unhealthy share's room, a timeout a round).
      // Their attempts then fill the unhealthy share and hang there.
      const hanging = await hangingSellers(40, 10, hangingKnown);
      await eventually(async () => expect((await endpointGauges(ctx.pool, config.breakerFailures)).byState.untried.endpoints).toBe(0), 60_000, 50);
      await eventually(() => expect(hanging.rx.open).toBe(config.unhealthyConcurrency), 20_000, 20);

      // A seller connects its webhook (nothing has answered at that URL yet) and sells, beside the known one.
      const fresh = await receiver(answer);
      await addSeller(ctx.pool, 2, fresh.url);
      const committed: { eventId: string; sellerId: number; at: number }[] = [];
      const started = Date.now();
      for (let i = 0; i < 40; i++) {
        const due = started + i * 40; // 25 a second for each seller
        if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
        const events = await insertEvents(ctx.pool, [{ sellerId: 2 }, { sellerId: 1 }]);
        const at = Date.now();
        committed.push(...events.map((e) => ({ eventId: e.eventId, sellerId: e.sellerId, at })));
      }
      await eventually(() => expect(committed.filter((c) => !arrivals.has(c.eventId))).toEqual([]), 30_000);
      // The hanging endpoints were busy all along: their share stayed full.
      expect(hanging.rx.open).toBeGreaterThanOrEqual(config.unhealthyConcurrency - 4);

      const latency = (sellerId: number) =>
        committed
          .filter((c) => c.sellerId === sellerId)
          .map((c) => arrivals.get(c.eventId)! - c.at)
          .sort((a, b) => a - b);
      const [newUrl, knownUrl] = [latency(2), latency(1)];
      console.log(
        `[fairness, 40 hanging endpoints, ${hangingKnown ? 'known' : 'new'}] commit-to-delivery p50 / p99 / max: new URL ${pct(newUrl, 0.5)} / ${pct(newUrl, 0.99)} / ${newUrl.at(-1)} ms, ` +
          `known URL ${pct(knownUrl, 0.5)} / ${pct(knownUrl, 0.99)} / ${knownUrl.at(-1)} ms`,
      );
      expect(pct(newUrl, 0.99)).toBeLessThanOrEqual(1000);
      expect(pct(knownUrl, 0.99)).toBeLessThanOrEqual(1000);
      // The new endpoint answered: it is healthy, and each event was delivered at its first attempt.
      expect((await health(2)).answered_at).not.toBeNull();
      // The receiver has every event before the dispatcher records the last answers: asked until then.
      await eventually(async () => {
        const { rows } = await ctx.pool.query<{ state: string; attempts: number; n: number }>(
          `SELECT state, attempts, count(*)::int AS n FROM webhook_events WHERE seller_id = 2 GROUP BY 1, 2`,
        );
        expect(rows).toEqual([{ state: 'delivered', attempts: 1, n: 40 }]);
      }, 10_000);
      expect(hanging.rx.maxOpen).toBeLessThanOrEqual(config.unhealthyConcurrency + (hangingKnown ? 0 : config.untriedConcurrency));
    });

  it('a hanging endpoint that answers again gets its backlog, in next_attempt_at order, and its breaker closes', async () => {
    let down = true;
    const answered: string[] = [];
    const rx = await receiver((r) => {
      if (down) return null;
      answered.push(String(r.headers['webhook-id']));
      return { status: 204 };
    });
    await addSeller(ctx.pool, 1, rx.url);
    const backlog = await insertEvents(
      ctx.pool,
      Array.from({ length: 12 }, () => ({ sellerId: 1 })),
    );
    const retryDelaysMs = [200, 400, 800, 1600, 3200, 6400, 12_800];
    const timeoutMs = 300;
    const breakerCooldownMs = 300;
    await dispatch({ perEndpoint: 1, timeoutMs, breakerFailures: 3, breakerCooldownMs, retryDelaysMs });

    // While the breaker is open, only probes are attempted: the other events keep their schedule.
    await eventually(async () => expect((await health(1)).failures).toBeGreaterThanOrEqual(3), 20_000);
    const schedule = async () =>
      new Map(
        (
          await ctx.pool.query<{ event_id: string; attempts: number; next_attempt_at: Date }>(
            `SELECT event_id, attempts, next_attempt_at FROM webhook_events`,
          )
        ).rows.map((r) => [r.event_id, `${r.attempts} ${r.next_attempt_at.toISOString()}`]),
      );
    const open = await schedule();
    const waitMs = 1500;
    await new Promise((r) => setTimeout(r, waitMs));
    const later = await schedule();
    const probed = [...open.keys()].filter((id) => open.get(id) !== later.get(id));
    expect(probed.length).toBeGreaterThanOrEqual(1);
    expect(probed.length).toBeLessThanOrEqual(Math.ceil(waitMs / (timeoutMs + breakerCooldownMs)) + 1);
    expect([...later.values()].filter((v) => v.startsWith('0 ')).length).toBeGreaterThan(0); // held back, never attempted

    down = false;
    await allDelivered();
    // Each event answered once, in the order it was due (nothing reordered, dropped or repeated).
    const { rows } = await ctx.pool.query<{ event_id: string }>(`SELECT event_id FROM webhook_events ORDER BY next_attempt_at, event_id`);
    expect(answered).toEqual(rows.map((r) => r.event_id));
    expect(new Set(answered)).toEqual(new Set(backlog.map((e) => e.eventId)));
    for (const e of backlog) {
      const log = await attemptRows(ctx.pool, e.eventId);
      expect(log.map((a) => a.status_code)).toEqual([...log.slice(1).map(() => null), 204]);
    }
    const h = await health(1);
    expect(h.failures).toBe(0);
    expect(h.probe_until).toBeNull();
  });

  it('with two dispatchers an open breaker lets one probe through at a time, after each cooldown', async () => {
    let down = true;
    const rx = await receiver(() => (down ? null : { status: 200 }));
    await addSeller(ctx.pool, 1, rx.url);
    await insertEvents(
      ctx.pool,
      Array.from({ length: 30 }, () => ({ sellerId: 1 })),
    );
    const timeoutMs = 300;
    const breakerCooldownMs = 400;
    const config = { perEndpoint: 4, timeoutMs, breakerFailures: 3, breakerCooldownMs, retryDelaysMs: [100, 100, 100, 100, 100, 100, 100, 100] };
    await dispatch(config);
    await dispatch(config);

    await eventually(async () => expect((await health(1)).failures).toBeGreaterThanOrEqual(3), 20_000);
    const openedAt = Date.now();
    // Attempts claimed before the breaker opened end within a timeout; then only probes.
    await eventually(() => expect(rx.received.filter((r) => r.at > openedAt + timeoutMs + 200).length).toBeGreaterThanOrEqual(4), 20_000);
    const probes = rx.received.filter((r) => r.at > openedAt + timeoutMs + 200).slice(0, 4);
    for (const [i, p] of probes.entries()) {
      expect(rx.received.filter((r) => r !== p && r.at <= p.at && (r.endedAt === null || r.endedAt > p.at))).toEqual([]);
      if (i > 0) expect(p.at - probes[i - 1]!.endedAt!).toBeGreaterThanOrEqual(breakerCooldownMs - 20);
    }
    down = false;
    await allDelivered();
    expect((await health(1)).failures).toBe(0);
  });
});
