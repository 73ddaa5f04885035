import request from 'supertest';
import type { Express } from 'express';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../../src/db/pool.js';
import { createLogger } from '../../../src/lib/logger.js';
import { enterOrder } from '../../../src/orders/checkout.js';
import { startDispatcher, type Dispatcher } from '../../../dispatcher/loop.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { testDispatcherConfig } from '../../support/dispatcher-config.js';
import { eventually } from '../../support/eventually.js';
import { newSecret, startReceiver, type Receiver } from '../../support/outbox.js';
import { CUSTOMER } from '../../support/seller-api.js';
import { BIRCH, MAPLE, seedSellerApi, sellerApp } from '../../support/seller-seed.js';

// End to end: an order entered through the checkout path (src/orders/checkout.ts) and cancelled
// through the API reaches the seller's webhook, its data byte-identical to GET /orders/{id}.

let ctx: TestContext;
let app: Express;
let keys: { maple: string; birch: string; ledger: string };
let dispatcher: Dispatcher;
let maple: Receiver;
let birch: Receiver;
const secrets: Record<number, string> = {};

beforeAll(async () => {
  ctx = await createTestContext();
  keys = await seedSellerApi(ctx);
  app = sellerApp(ctx, { RATE_LIMIT_SELLER_PER_MIN: 1_000_000 });
  maple = await startReceiver();
  birch = await startReceiver();
  secrets[MAPLE] = newSecret();
  secrets[BIRCH] = newSecret();
  await ctx.pool.query(
    `INSERT INTO seller_webhooks (seller_id, url, secret, cancel_event) VALUES ($1, $2, $3, 'order.cancelled'), ($4, $5, $6, 'inventory.adjusted')`,
    [MAPLE, maple.url, secrets[MAPLE], BIRCH, birch.url, secrets[BIRCH]],
  );
  dispatcher = await startDispatcher({
    pool: ctx.pool,
    databaseUrl: ctx.databaseUrl,
    logger: createLogger('silent'),
    config: testDispatcherConfig({ retryDelaysMs: [200], concurrency: 8, unhealthyConcurrency: 4, perEndpoint: 2 }),
  });
});
afterAll(async () => {
  await dispatcher?.stop();
  await maple?.close();
  await birch?.close();
  await ctx?.close();
});

let n = 0;
async function listing(seller: number, price: number, quantity: number): Promise<number> {
  const skuId = 7000 + ++n;
  await ctx.pool.query(`INSERT INTO skus (sku_id, product_id, condition, language, finish) VALUES ($1, 101, 'Near Mint', 'English', NULL)`, [skuId]);
  await ctx.pool.query(
    `INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, external_ref, match_status) VALUES ($1, $2, 101, $3, $4, $5, 'matched')`,
    [seller, skuId, price, quantity, `ext-${skuId}`],
  );
  return skuId;
}

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

/** The `data` text of an API success envelope, exactly as sent. */
function apiData(res: request.Response): string {
  const prefix = '{"success":true,"data":';
  expect(res.text.startsWith(prefix)).toBe(true);
  return res.text.slice(prefix.length, -1);
}

/** The `data` text of a webhook body, exactly as sent (the envelope ends with it). */
function hookData(body: string): string {
  const at = body.indexOf(',"data":');
  expect(at).toBeGreaterThan(0);
  expect(body.endsWith('}')).toBe(true);
  return body.slice(at + ',"data":'.length, -1);
}

function deliveriesOf(rx: Receiver, sellerId: number, orderId: string, type: string) {
  return rx.received.filter((r) => {
    const env = new Webhook(secrets[sellerId]!).verify(r.body, r.headers as Record<string, string>) as { type: string; data: { order_id: string } };
    return env.type === type && env.data.order_id === orderId;
  });
}

describe('orders to webhooks, end to end', () => {
  it('order.created and order.cancelled arrive signed, with data byte-identical to GET /orders/{id} at that moment', async () => {
    const sku = await listing(MAPLE, 1500, 3);
    const orderId = 'ord_e2e_maple';
    const entered = await withTransaction(ctx.pool, (c) =>
      enterOrder(c, { orderId, sellerId: MAPLE, currency: 'CAD', customer: CUSTOMER, shippingMethod: 'Tracked', lines: [{ skuId: sku, quantity: 2 }] }),
    );
    expect(entered.created).toBe(true);
    const detail = apiData(await request(app).get(`/orders/${orderId}`).set(auth(keys.maple)));

    await eventually(() => expect(deliveriesOf(maple, MAPLE, orderId, 'order.created')).toHaveLength(1), 10_000);
    const created = deliveriesOf(maple, MAPLE, orderId, 'order.created')[0]!;
    expect(hookData(created.body)).toBe(detail);
    const env = JSON.parse(created.body) as { api_version: string; created_at: string; data: { created_at: string } };
    expect(env.api_version).toBe('2026-07');
    expect(env.created_at).toBe(env.data.created_at);

    const cancelled = await request(app).post(`/orders/${orderId}/cancel`).set(auth(keys.maple));
    expect(cancelled.status, cancelled.text).toBe(200);
    const after = apiData(await request(app).get(`/orders/${orderId}`).set(auth(keys.maple)));
    await eventually(() => expect(deliveriesOf(maple, MAPLE, orderId, 'order.cancelled')).toHaveLength(1), 10_000);
    expect(hookData(deliveriesOf(maple, MAPLE, orderId, 'order.cancelled')[0]!.body)).toBe(after);
  });

  it('a seller subscribed to inventory.adjusted gets the restocked units; without a webhook it gets nothing while polling shows the order', async () => {
    const sku = await listing(BIRCH, 900, 5);
    const orderId = 'ord_e2e_birch';
    await withTransaction(ctx.pool, (c) =>
      enterOrder(c, { orderId, sellerId: BIRCH, currency: 'CAD', customer: CUSTOMER, shippingMethod: 'Tracked', lines: [{ skuId: sku, quantity: 3 }] }),
    );
    const res = await request(app)
      .post(`/orders/${orderId}/cancel`)
      .set(auth(keys.birch))
      .send({ lines: [{ skuId: sku, quantity: 2 }] });
    expect(res.status, res.text).toBe(200);
    await eventually(() => expect(deliveriesOf(birch, BIRCH, orderId, 'inventory.adjusted')).toHaveLength(1), 10_000);
    const adjusted = JSON.parse(deliveriesOf(birch, BIRCH, orderId, 'inventory.adjusted')[0]!.body) as { data: unknown };
    expect(adjusted.data).toMatchObject({
      seller_id: BIRCH,
      order_id: orderId,
      adjustments: [{ sku_id: sku, product_id: 101, quantity: 2, external_ref: `ext-${sku}` }],
    });
    expect(deliveriesOf(birch, BIRCH, orderId, 'order.created')).toHaveLength(1);

    // Without a webhook: the event is written no_endpoint, nothing is sent, the poll has the order.
    await ctx.pool.query('DELETE FROM seller_webhooks WHERE seller_id = $1', [BIRCH]);
    const quiet = 'ord_e2e_birch_quiet';
    await withTransaction(ctx.pool, (c) =>
      enterOrder(c, {
        orderId: quiet,
        sellerId: BIRCH,
        currency: 'CAD',
        customer: CUSTOMER,
        shippingMethod: 'Tracked',
        lines: [{ skuId: sku, quantity: 1 }],
      }),
    );
    const { rows } = await ctx.pool.query(`SELECT state, attempts FROM webhook_events WHERE order_id = $1`, [quiet]);
    expect(rows).toEqual([{ state: 'no_endpoint', attempts: 0 }]);
    // A marker delivery to the other seller shows the dispatcher has run a claim since.
    const markerSku = await listing(MAPLE, 100, 1);
    await withTransaction(ctx.pool, (c) =>
      enterOrder(c, {
        orderId: 'ord_e2e_marker',
        sellerId: MAPLE,
        currency: 'CAD',
        customer: CUSTOMER,
        shippingMethod: 'Tracked',
        lines: [{ skuId: markerSku, quantity: 1 }],
      }),
    );
    await eventually(() => expect(deliveriesOf(maple, MAPLE, 'ord_e2e_marker', 'order.created')).toHaveLength(1), 10_000);
    expect(birch.received.filter((r) => r.body.includes(quiet))).toEqual([]);
    const poll = await request(app).get('/orders').set(auth(keys.birch));
    expect(poll.status).toBe(200);
    expect(poll.body.data.items.map((o: { order_id: string }) => o.order_id)).toContain(quiet);
  });
});
