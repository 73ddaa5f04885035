import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import request from 'supertest';
import { BIRCH, MAPLE } from '../../../support/seller-seed.js';
import { CUSTOMER as customer, useSellerApi } from '../../../support/seller-api.js';
import { withTransaction } from '../../../../src/db/pool.js';
import { lockOrder, updateFulfillment } from '../../../../src/db/orders.js';
import { webhookEventsOfOrder } from '../../../../src/db/webhook-events.js';
import { checkoutOrder, enterOrder } from '../../../../src/orders/checkout.js';
import { CheckoutError, type CheckoutInput } from '../../../../src/orders/entry.js';
import { orderSchema } from '../../../../src/contract/orders.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../../../src/api/openapi/document.js';

// The order half of the seller API against a real PostgreSQL: entry through the checkout path,
// detail and poll (byte-identical to the outbox), every row of the transition and error tables,
// partial and whole cancels with exact totals, idempotent repeats, concurrent moves, seller
// scoping, holds in the export, and a poll that never misses a late-committing change.

const api = useSellerApi({ env: { RATE_LIMIT_SELLER_PER_MIN: 1_000_000 } });
const { auth, listing } = api;

beforeAll(async () => {
  await api.ctx.pool.query(`
    INSERT INTO seller_shipping_options (seller_id, method, cost, tracked, position) VALUES (7, 'Lettermail', 199, false, 1);
    INSERT INTO seller_webhooks (seller_id, url, secret, cancel_event) VALUES (8, 'http://127.0.0.1:9/hook', 'whsec_dGVzdA==', 'inventory.adjusted');
    UPDATE products SET set_name = NULL WHERE product_id = 102;
  `);
});

/** Order ids of this file. */
let n = 0;

/** An order entered as a checkout enters it (checkoutOrder: a transaction of its own). */
async function enter(input: Partial<CheckoutInput> & { lines: CheckoutInput['lines'] }): Promise<string> {
  const orderId = input.orderId ?? `ord_t${++n}`;
  const r = await checkoutOrder(api.ctx.pool, { sellerId: MAPLE, currency: 'CAD', customer, shippingMethod: 'Tracked', ...input, orderId });
  expect(r.created).toBe(true);
  return orderId;
}

const detail = (id: string, key = api.keys.maple) =>
  request(api.app)
    .get(`/orders/${encodeURIComponent(id)}`)
    .set(auth(key));
const fulfil = (id: string, body: unknown, key = api.keys.maple) =>
  request(api.app)
    .patch(`/orders/${encodeURIComponent(id)}/fulfillment`)
    .set(auth(key))
    .send(body as object);
const cancel = (id: string, body?: unknown, key = api.keys.maple) => {
  const r = request(api.app)
    .post(`/orders/${encodeURIComponent(id)}/cancel`)
    .set(auth(key));
  return body === undefined ? r : r.send(body as object);
};
const poll = (query: Record<string, string>, key = api.keys.maple) => request(api.app).get('/orders').query(query).set(auth(key));

/** The `data` text of a success envelope, exactly as sent. */
function dataText(res: request.Response): string {
  const prefix = '{"success":true,"data":';
  expect(res.text.startsWith(prefix)).toBe(true);
  return res.text.slice(prefix.length, -1);
}

async function changeOf(id: string): Promise<{ seq: number; updated: string; events: number }> {
  const { rows } = await api.ctx.pool.query(
    `SELECT change_seq AS seq, updated_at::text AS updated, (SELECT count(*)::int FROM webhook_events WHERE order_id = $1) AS events
       FROM orders WHERE order_id = $1`,
    [id],
  );
  return rows[0];
}

async function available(skuId: number, key = api.keys.maple): Promise<number> {
  const res = await request(api.app).get('/listings').query({ limit: '1000' }).set(auth(key));
  expect(res.status).toBe(200);
  return res.body.data.items.find((i: { skuId: number }) => i.skuId === skuId).available;
}

function expectError(res: request.Response, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toMatchObject({ success: false, error: { code } });
}

describe('entry and reads', () => {
  it('freezes the order at entry; detail, poll item and order.created data are the same bytes', async () => {
    const a = await listing(MAPLE, 250, 5, { externalRef: 'A-1' });
    const b = await listing(MAPLE, 400, 3, { productId: 102 }); // product 102 has a null set: frozen as ''
    const id = await enter({
      lines: [
        { skuId: a, quantity: 3 },
        { skuId: b, quantity: 1 },
      ],
      tax: [
        { label: 'GST', rate: 0.05 },
        { label: 'PST', rate: 0.07 },
      ],
      buyerNotes: 'Sleeve it',
    });

    const res = await detail(id);
    expect(res.status).toBe(200);
    const text = dataText(res);
    const body = JSON.parse(text);
    expect(orderSchema.strict().parse(body)).toEqual(body);
    // subtotal 750 + 400 = 1150; base 1150 + 1299 = 2449; GST 122.45 -> 122; PST 171.43 -> 171.
    expect(body).toEqual({
      order_id: id,
      seller_id: MAPLE,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      currency: 'CAD',
      customer,
      lines: [
        {
          sku_id: a,
          product_id: 101,
          quantity: 3,
          unit_price: 250,
          name: 'Lightning Bolt',
          set: 'Alpha',
          condition: 'Near Mint',
          external_ref: 'A-1',
          language: 'English',
          finish: null,
          disclosures: {
            image_source: 'catalog',
            condition_source: 'seller_declared',
            authenticity_source: 'seller_attestation',
            service_inspected: false,
            service_graded: false,
            service_authenticated: false,
            grading_standard: 'service-magic-v1',
            declared_grade: null,
            buyer_protection: 'magic-grade-and-authenticity',
          },
          fulfillment_obligation: { sku: 'exact', printing: 'exact', language: 'exact', finish: 'exact', condition: 'declared-or-better' },
        },
        expect.objectContaining({ sku_id: b, product_id: 102, quantity: 1, unit_price: 400, name: 'Counterspell', set: '', external_ref: null }),
      ],
      totals: { subtotal: 1150, shipping: 1299, tax: 293, grand_total: 2742 },
      tax: {
        lines: [
          { label: 'GST', rate: 0.05, amount: 122 },
          { label: 'PST', rate: 0.07, amount: 171 },
        ],
      },
      shipping: { method: 'Tracked', cost: 1299 },
      buyer_notes: 'Sleeve it',
    });
    expect(Object.keys(body)).toEqual([
      'order_id',
      'seller_id',
      'created_at',
      'currency',
      'customer',
      'lines',
      'totals',
      'tax',
      'shipping',
      'buyer_notes',
    ]);

    const [event, ...more] = await webhookEventsOfOrder(api.ctx.pool, id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ type: 'order.created', apiVersion: '2026-07', state: 'no_endpoint', sellerId: MAPLE });
    expect(event!.eventId).toMatch(/^msg_[0-9a-z]{26}$/);
    expect(event!.data).toBe(text);
    expect(event!.createdAt.toISOString()).toBe(body.created_at);

    const items = await walk({});
    const polled = items.find((t) => JSON.parse(t).order_id === id);
    expect(polled).toBe(text);
    // The holds lower available in the export.
    expect(await available(a)).toBe(2);
    expect(await available(b)).toBe(2);
  });

  it('an order without tax has no tax block; an operator order has no money', async () => {
    const a = await listing(MAPLE, 100, 5);
    const plain = JSON.parse(dataText(await detail(await enter({ lines: [{ skuId: a, quantity: 1 }] }))));
    expect(plain.totals).toEqual({ subtotal: 100, shipping: 1299, tax: 0, grand_total: 1399 });
    expect(plain).not.toHaveProperty('tax');
    const zeroRate = JSON.parse(dataText(await detail(await enter({ lines: [{ skuId: a, quantity: 1 }], tax: [{ label: 'Exempt', rate: 0 }] }))));
    expect(zeroRate).not.toHaveProperty('tax');
    const op = JSON.parse(dataText(await detail(await enter({ lines: [{ skuId: a, quantity: 2 }], operator: true, shippingMethod: undefined }))));
    expect(Object.keys(op)).toEqual(['order_id', 'seller_id', 'created_at', 'currency', 'customer', 'lines']);
    expect(op.lines[0].unit_price).toBe(100);
    expect(await available(a)).toBe(1);
  });

  it('refuses entries that are not against shown offers with enough stock, naming the path', async () => {
    const a = await listing(MAPLE, 100, 2);
    const refused = async (input: Partial<CheckoutInput> & { lines: CheckoutInput['lines'] }) => {
      const err = await withTransaction(api.ctx.pool, (c) =>
        enterOrder(c, { orderId: `ord_r${++n}`, sellerId: MAPLE, currency: 'CAD', customer, shippingMethod: 'Tracked', ...input }),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CheckoutError);
      return (err as Error).message;
    };
    expect(await refused({ lines: [{ skuId: a, quantity: 3 }] })).toBe(`lines[0].quantity: 3 requested, 2 available for sku ${a}`);
    expect(await refused({ lines: [{ skuId: a, quantity: 1 }], currency: 'USD' })).toBe("currency: expected the seller's currency CAD, got USD");
    expect(await refused({ lines: [{ skuId: a, quantity: 1 }], shippingMethod: 'Pigeon' })).toBe(
      'shippingMethod: "Pigeon" is not a shipping option of seller 7',
    );
    expect(
      await refused({
        lines: [
          { skuId: a, quantity: 1 },
          { skuId: 9999, quantity: 1 },
        ],
      }),
    ).toBe('lines[1].skuId: sku 9999 is not a shown offer of seller 7: no listing');
    await api.ctx.pool.query('UPDATE sellers SET vacation = true WHERE seller_id = 7');
    try {
      expect(await refused({ lines: [{ skuId: a, quantity: 1 }] })).toContain('not browse-eligible (VACATION_DISABLED)');
    } finally {
      await api.ctx.pool.query('UPDATE sellers SET vacation = false WHERE seller_id = 7');
    }
    expect(await api.ctx.pool.query(`SELECT 1 FROM orders WHERE order_id LIKE 'ord_r%'`).then((r) => r.rowCount)).toBe(0);
  });

  it('two concurrent entries for the last unit: exactly one succeeds', async () => {
    const last = await listing(MAPLE, 5000, 1);
    const attempt = (orderId: string) =>
      withTransaction(api.ctx.pool, async (c) => {
        const r = await enterOrder(c, {
          orderId,
          sellerId: MAPLE,
          currency: 'CAD',
          customer,
          shippingMethod: 'Tracked',
          lines: [{ skuId: last, quantity: 1 }],
        });
        // Keep the transaction open a moment so the other entry is already waiting.
        await c.query('SELECT pg_sleep(0.2)');
        return r;
      });
    const results = await Promise.allSettled([attempt('ord_last_a'), attempt('ord_last_b')]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]!.reason).toBeInstanceOf(CheckoutError);
    expect((lost[0]!.reason as Error).message).toBe(`lines[0].quantity: 1 requested, 0 available for sku ${last}`);
    expect(await available(last)).toBe(0);
  });

  it('checkoutOrder: many concurrent entries for the last units of a listing sell exactly the stock; a refusal writes nothing', async () => {
    const a = await listing(MAPLE, 700, 3);
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) =>
        checkoutOrder(api.ctx.pool, {
          orderId: `ord_rush${n}_${i}`,
          sellerId: MAPLE,
          currency: 'CAD',
          customer,
          shippingMethod: 'Tracked',
          lines: [{ skuId: a, quantity: 1 }],
        }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(3);
    expect(lost.map((r) => (r.reason as Error).message)).toEqual(Array(5).fill(`lines[0].quantity: 1 requested, 0 available for sku ${a}`));
    expect(await available(a)).toBe(0);
    const ids = won.map((r) => (r as PromiseFulfilledResult<{ orderId: string }>).value.orderId);
    const stored = await api.ctx.pool.query(`SELECT order_id FROM orders WHERE order_id LIKE $1 ORDER BY order_id`, [`ord_rush${n}_%`]);
    expect(stored.rows.map((r) => r.order_id)).toEqual([...ids].sort());
    // Each entered order has exactly its one order.created, whose data is the detail's bytes.
    for (const id of ids) {
      const events = await webhookEventsOfOrder(api.ctx.pool, id);
      expect(events.map((e) => e.type)).toEqual(['order.created']);
      expect(events[0]!.data).toBe(dataText(await detail(id)));
    }
    const outbox = await api.ctx.pool.query(`SELECT count(*)::int AS n FROM webhook_events WHERE order_id LIKE $1`, [`ord_rush${n}_%`]);
    expect(outbox.rows[0].n).toBe(3);
    // Sellers that do not exist, including ids no lock key can hold, are refusals, not crashes.
    for (const sellerId of [999, 3_000_000_000, 0]) {
      const err = await checkoutOrder(api.ctx.pool, {
        orderId: `ord_noseller_${sellerId}`,
        sellerId,
        currency: 'CAD',
        customer,
        shippingMethod: 'Tracked',
        lines: [{ skuId: a, quantity: 1 }],
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CheckoutError);
      expect((err as Error).message).toBe(`sellerId: seller ${sellerId} does not exist`);
    }
  });

  it('an existing order id is left as it is: no second hold, no second event', async () => {
    const a = await listing(MAPLE, 100, 5);
    const id = await enter({ lines: [{ skuId: a, quantity: 2 }] });
    const before = await changeOf(id);
    const again = await withTransaction(api.ctx.pool, (c) =>
      enterOrder(c, { orderId: id, sellerId: MAPLE, currency: 'CAD', customer, shippingMethod: 'Tracked', lines: [{ skuId: a, quantity: 2 }] }),
    );
    expect(again).toEqual({ orderId: id, created: false });
    expect(await changeOf(id)).toEqual(before);
    expect(await available(a)).toBe(3);
  });
});

/** Every item of a full poll walk with these params (limit 2, so several pages). */
async function walk(query: Record<string, string>, key = api.keys.maple): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; ; pages++) {
    if (pages > 1000) throw new Error('cursor loop');
    const res = await poll(cursor ? { ...query, cursor } : { limit: '2', ...query }, key);
    expect(res.status, res.text).toBe(200);
    const data = JSON.parse(dataText(res));
    // Splice the raw item texts out of the page (they are what a Platform hashes or stores).
    out.push(...data.items.map((i: unknown) => JSON.stringify(i)));
    cursor = data.nextCursor;
    if (!cursor) return out;
  }
}

describe('poll', () => {
  it('walks every order once in change order; since filters; limit and cursor are validated', async () => {
    const a = await listing(MAPLE, 100, 50);
    const t0 = new Date(Date.now() - 1).toISOString();
    const ids = [await enter({ lines: [{ skuId: a, quantity: 1 }] }), await enter({ lines: [{ skuId: a, quantity: 1 }] })];
    const all = (await walk({})).map((t) => JSON.parse(t).order_id);
    expect(new Set(all).size).toBe(all.length);
    expect(all.slice(-2)).toEqual(ids);
    const recent = (await walk({ since: t0 })).map((t) => JSON.parse(t).order_id);
    expect(recent).toEqual(ids);
    // A move puts the order at the end of the feed.
    expect((await fulfil(ids[0]!, { status: 'accepted' })).status).toBe(200);
    expect((await walk({ since: t0 })).map((t) => JSON.parse(t).order_id)).toEqual([ids[1], ids[0]]);

    const first = await poll({ limit: '1' });
    expect(first.status).toBe(200);
    const cursor: string = first.body.data.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    expect(first.body.data.items).toHaveLength(1);
    const defaultPage = await poll({});
    expect(defaultPage.body.data.items.length).toBeLessThanOrEqual(100);
    for (const bad of <Record<string, string>[]>[
      { limit: '0' },
      { limit: '1001' },
      { limit: 'x' },
      { since: 'yesterday' },
      { cursor: '' },
      { cursor: 'garbage' },
      { cursor: `${cursor.slice(0, -2)}AA` },
      { cursor: `x${cursor}` },
    ]) {
      expectError(await poll(bad), 400, 'INVALID_REQUEST');
    }
    // A cursor is bound to its seller and to its since.
    expectError(await poll({ cursor }, api.keys.birch), 400, 'INVALID_REQUEST');
    expectError(await poll({ cursor, since: t0 }), 400, 'INVALID_REQUEST');
    expectError(await request(api.app).get('/orders'), 401, 'UNAUTHORIZED');
  });

  it('never misses a change committed late: a transaction held open across the walk shows on resume', async () => {
    const a = await listing(MAPLE, 100, 50);
    const t0 = new Date(Date.now() - 1).toISOString();
    const [early, late, other] = [
      await enter({ lines: [{ skuId: a, quantity: 1 }] }),
      await enter({ lines: [{ skuId: a, quantity: 1 }] }),
      await enter({ lines: [{ skuId: a, quantity: 1 }] }),
    ];

    // A transaction changes `early` and stays open (its position is below everything after it).
    const held = await api.ctx.pool.connect();
    try {
      await held.query('BEGIN');
      const locked = await lockOrder(held, MAPLE, early);
      await updateFulfillment(held, early, { status: 'accepted', trackingCompany: null, trackingNumber: null, trackingUrl: null });
      expect(locked).not.toBeNull();
      // Later transactions commit changes of the other orders meanwhile.
      expect((await fulfil(late, { status: 'shipped', trackingCompany: 'Canada Post', trackingNumber: 'CP1' })).status).toBe(200);
      expect((await cancel(other)).status).toBe(200);

      // The poller walks to the end, remembering its last cursor.
      const seen = new Map<string, string>();
      let cursor: string | null = null;
      let lastCursor: string | null = null;
      for (;;) {
        const res = await poll(cursor ? { cursor } : { since: t0, limit: '1' });
        expect(res.status).toBe(200);
        for (const item of res.body.data.items) seen.set(item.order_id, item.status ?? 'created');
        if (cursor) lastCursor = cursor;
        cursor = res.body.data.nextCursor;
        if (!cursor) break;
      }
      // Nothing at or after the open transaction's position is shown yet: not the later commits either.
      expect(seen.get(early)).toBe('created');
      expect(seen.has(late)).toBe(false);
      expect(seen.has(other)).toBe(false);

      await held.query('COMMIT');
      // Resume from the last cursor: every order's final state arrives.
      cursor = lastCursor;
      for (;;) {
        const res = await poll(cursor ? { cursor } : { since: t0, limit: '1' });
        expect(res.status).toBe(200);
        for (const item of res.body.data.items) seen.set(item.order_id, item.status ?? 'created');
        cursor = res.body.data.nextCursor;
        if (!cursor) break;
      }
      expect(Object.fromEntries(seen)).toEqual({ [early]: 'accepted', [late]: 'shipped', [other]: 'cancelled' });
    } finally {
      await held.query('ROLLBACK').catch(() => undefined);
      held.release();
    }
  });
});

describe('transitions', () => {
  let sku: number;
  beforeEach(async () => {
    sku = await listing(MAPLE, 100, 100);
  });
  const order = (input: Partial<CheckoutInput> = {}) => enter({ lines: [{ skuId: sku, quantity: 1 }], ...input });
  const status = async (res: request.Response) => {
    expect(res.status, res.text).toBe(200);
    return JSON.parse(dataText(res)).status ?? 'created';
  };

  it('created -> accepted -> shipped (tracked, tracking stored) -> delivered (tracking kept)', async () => {
    const id = await order();
    expect(await status(await fulfil(id, { status: 'accepted' }))).toBe('accepted');
    const shipped = await fulfil(id, {
      status: 'shipped',
      trackingCompany: 'Canada Post',
      trackingNumber: 'CP123',
      trackingUrl: 'https://track.example/CP123',
    });
    expect(await status(shipped)).toBe('shipped');
    const fulfillment = { tracking_company: 'Canada Post', tracking_number: 'CP123', tracking_url: 'https://track.example/CP123' };
    expect(shipped.body.data.fulfillment).toEqual(fulfillment);
    const delivered = await fulfil(id, { status: 'delivered' });
    expect(await status(delivered)).toBe('delivered');
    expect(delivered.body.data.fulfillment).toEqual(fulfillment);
    expect(dataText(await detail(id))).toBe(dataText(delivered));
    // No event for fulfillment moves.
    expect((await webhookEventsOfOrder(api.ctx.pool, id)).map((e) => e.type)).toEqual(['order.created']);
  });

  it('created -> shipped skips accepted; tracking url is optional (null)', async () => {
    const id = await order();
    const res = await fulfil(id, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' });
    expect(await status(res)).toBe('shipped');
    expect(res.body.data.fulfillment).toEqual({ tracking_company: 'UPS', tracking_number: '1Z', tracking_url: null });
  });

  it('an untracked option ships without tracking (Seller Dispatch) and refuses tracking', async () => {
    const id = await order({ shippingMethod: 'Lettermail' });
    expectError(await fulfil(id, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' }), 422, 'INVALID_REQUEST');
    const res = await fulfil(id, { status: 'shipped' });
    expect(await status(res)).toBe('shipped');
    expect(res.body.data).not.toHaveProperty('fulfillment');
  });

  it('an operator order ships with tracking or without', async () => {
    const a = await order({ operator: true, shippingMethod: undefined });
    const b = await order({ operator: true, shippingMethod: undefined });
    expect(await status(await fulfil(a, { status: 'shipped' }))).toBe('shipped');
    expect(await status(await fulfil(b, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' }))).toBe('shipped');
  });

  it('cancel from created and from accepted: cancelled, with an order.cancelled event of the returned body', async () => {
    for (const accept of [false, true]) {
      const id = await order();
      if (accept) expect(await status(await fulfil(id, { status: 'accepted' }))).toBe('accepted');
      const res = await cancel(id);
      expect(await status(res)).toBe('cancelled');
      const events = await webhookEventsOfOrder(api.ctx.pool, id);
      expect(events.map((e) => e.type)).toEqual(['order.created', 'order.cancelled']);
      expect(events[1]!.data).toBe(dataText(res));
      expect(events[1]!.createdAt.getTime()).toBeGreaterThanOrEqual(events[0]!.createdAt.getTime());
    }
  });

  it('every move the graph forbids is 422 INVALID_TRANSITION and changes nothing', async () => {
    const shipped = await order();
    await status(await fulfil(shipped, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' }));
    const delivered = await order();
    await status(await fulfil(delivered, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' }));
    await status(await fulfil(delivered, { status: 'delivered' }));
    const cancelled = await order();
    await status(await cancel(cancelled));
    const accepted = await order();
    await status(await fulfil(accepted, { status: 'accepted' }));
    const created = await order();

    const cases: [string, () => request.Test][] = [
      ['created -> delivered', () => fulfil(created, { status: 'delivered' })],
      ['accepted -> delivered', () => fulfil(accepted, { status: 'delivered' })],
      ['shipped -> accepted (backward)', () => fulfil(shipped, { status: 'accepted' })],
      ['shipped -> shipped with other tracking', () => fulfil(shipped, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '2Z' })],
      ['shipped -> cancel (post-ship)', () => cancel(shipped)],
      ['delivered -> shipped (backward)', () => fulfil(delivered, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' })],
      ['delivered -> accepted (backward)', () => fulfil(delivered, { status: 'accepted' })],
      ['delivered -> cancel', () => cancel(delivered)],
      ['cancelled -> accepted', () => fulfil(cancelled, { status: 'accepted' })],
      ['cancelled -> shipped', () => fulfil(cancelled, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' })],
      ['cancelled -> line cancel', () => cancel(cancelled, { lines: [{ skuId: sku }] })],
      // Transition before dispatch evidence: accepted with tracking on a shipped order.
      ['shipped -> accepted with tracking', () => fulfil(shipped, { status: 'accepted', trackingCompany: 'UPS', trackingNumber: '1Z' })],
    ];
    for (const [name, send] of cases) {
      const target = name.startsWith('created')
        ? created
        : name.startsWith('accepted')
          ? accepted
          : name.startsWith('shipped')
            ? shipped
            : name.startsWith('delivered')
              ? delivered
              : cancelled;
      const before = await changeOf(target);
      const res = await send();
      expect(res.status, `${name}: ${res.text}`).toBe(422);
      expect(res.body.error.code, name).toBe('INVALID_TRANSITION');
      expect(await changeOf(target), name).toEqual(before);
    }
  });

  it('repeating the current status (same tracking) is an idempotent 200 with no new change', async () => {
    const id = await order();
    const accepted = await fulfil(id, { status: 'accepted' });
    let before = await changeOf(id);
    const again = await fulfil(id, { status: 'accepted' });
    expect(again.status).toBe(200);
    expect(dataText(again)).toBe(dataText(accepted));
    expect(await changeOf(id)).toEqual(before);

    const ship = { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z', trackingUrl: 'http://ups.example/1Z' };
    const shipped = await fulfil(id, ship);
    before = await changeOf(id);
    const shipAgain = await fulfil(id, ship);
    expect(shipAgain.status).toBe(200);
    expect(dataText(shipAgain)).toBe(dataText(shipped));
    expect(await changeOf(id)).toEqual(before);

    await status(await fulfil(id, { status: 'delivered' }));
    before = await changeOf(id);
    expect((await fulfil(id, { status: 'delivered' })).status).toBe(200);
    expect(await changeOf(id)).toEqual(before);

    const c = await order();
    const cancelled = await cancel(c);
    before = await changeOf(c);
    const cancelAgain = await cancel(c, {});
    expect(cancelAgain.status).toBe(200);
    expect(dataText(cancelAgain)).toBe(dataText(cancelled));
    expect(await changeOf(c)).toEqual(before); // no change, no second event
  });
});

describe('errors', () => {
  let sku: number;
  let id: string;
  beforeAll(async () => {
    sku = await listing(MAPLE, 100, 100);
    id = await enter({ lines: [{ skuId: sku, quantity: 2 }] });
  });

  it('400 for bodies that fail alone, before the order is looked up (also for an unknown order)', async () => {
    const bodies: unknown[] = [
      {},
      { status: 'cancelled' },
      { status: 'refunded' },
      { status: 'shipped', trackingCompany: 'UPS' },
      { status: 'shipped', trackingNumber: '1Z' },
      { status: 'shipped', trackingUrl: 'https://x.example/1' },
      { status: 'accepted', trackingUrl: 'https://x.example/1' },
      { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z', trackingUrl: 'ftp://x.example/1' },
      { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z', trackingUrl: 'not a url' },
      { status: 'shipped', trackingCompany: '', trackingNumber: '1Z' },
      { status: 'shipped', trackingCompany: 'x'.repeat(256), trackingNumber: '1Z' },
      { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z', trackingUrl: `https://x.example/${'a'.repeat(2040)}` },
      { status: 'accepted', note: 'unknown field' },
    ];
    for (const body of bodies) {
      for (const target of [id, 'ord_does_not_exist']) {
        const res = await fulfil(target, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('INVALID_REQUEST');
      }
    }
    const cancels: unknown[] = [
      { lines: [] },
      { lines: [{ skuId: 0 }] },
      { lines: [{ skuId: sku, quantity: 0 }] },
      { lines: [{ skuId: sku }, { skuId: sku }] },
      { reason: 'x' },
    ];
    for (const body of cancels) {
      for (const target of [id, 'ord_does_not_exist']) expectError(await cancel(target, body), 400, 'INVALID_REQUEST');
    }
    const before = await changeOf(id);
    // Cancel lines are checked against the order (after 404 and the transition check).
    const notInOrder = await cancel(id, { lines: [{ skuId: 9999 }] });
    expectError(notInOrder, 400, 'INVALID_REQUEST');
    expect(notInOrder.body.error.details).toEqual([{ field: 'lines.0.skuId', message: 'sku 9999 is not a remaining line of this order' }]);
    const tooMany = await cancel(id, { lines: [{ skuId: sku, quantity: 3 }] });
    expectError(tooMany, 400, 'INVALID_REQUEST');
    expect(tooMany.body.error.details[0].field).toBe('lines.0.quantity');
    expect(await changeOf(id)).toEqual(before);
  });

  it('401 on every order route without a valid key', async () => {
    for (const r of [
      request(api.app).get('/orders'),
      request(api.app).get(`/orders/${id}`),
      request(api.app).patch(`/orders/${id}/fulfillment`).send({ status: 'accepted' }),
      request(api.app).post(`/orders/${id}/cancel`),
      request(api.app).get(`/orders/${id}`).set(auth('mp_maple_00000000000000000000000000000000')),
    ]) {
      expectError(await r, 401, 'UNAUTHORIZED');
    }
  });

  it("404 ORDER_NOT_FOUND for an unknown id and for another seller's order, on every route; the poll does not show it", async () => {
    const before = await changeOf(id);
    for (const [target, key] of [
      ['ord_does_not_exist', api.keys.maple],
      [id, api.keys.birch],
    ] as const) {
      expectError(await detail(target, key), 404, 'ORDER_NOT_FOUND');
      expectError(await fulfil(target, { status: 'accepted' }, key), 404, 'ORDER_NOT_FOUND');
      expectError(await cancel(target, undefined, key), 404, 'ORDER_NOT_FOUND');
      expectError(await cancel(target, { lines: [{ skuId: sku }] }, key), 404, 'ORDER_NOT_FOUND');
    }
    expect((await walk({}, api.keys.birch)).map((t) => JSON.parse(t).order_id)).not.toContain(id);
    expect(await changeOf(id)).toEqual(before);
  });

  it('422 INVALID_REQUEST when dispatch evidence conflicts with the frozen option or the status', async () => {
    const before = await changeOf(id);
    const cases = [
      { status: 'shipped' }, // tracked option, no tracking
      { status: 'accepted', trackingCompany: 'UPS', trackingNumber: '1Z' },
    ];
    for (const body of cases) expectError(await fulfil(id, body), 422, 'INVALID_REQUEST');
    expect(await changeOf(id)).toEqual(before);
    const shipped = await enter({ lines: [{ skuId: sku, quantity: 1 }] });
    expect((await fulfil(shipped, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' })).status).toBe(200);
    // delivered cannot add or replace tracking
    expectError(await fulfil(shipped, { status: 'delivered', trackingCompany: 'UPS', trackingNumber: '1Z' }), 422, 'INVALID_REQUEST');
    expectError(await fulfil(shipped, { status: 'delivered', trackingCompany: 'DHL', trackingNumber: '9' }), 422, 'INVALID_REQUEST');
  });
});

describe('cancels, totals and holds', () => {
  it('partial cancels recompute totals with the same rates; cancelling the rest cancels the order as it was', async () => {
    const a = await listing(MAPLE, 250, 10, { externalRef: 'A' });
    const b = await listing(MAPLE, 999, 10, { externalRef: 'B' });
    const id = await enter({
      lines: [
        { skuId: a, quantity: 4 },
        { skuId: b, quantity: 2 },
      ],
      tax: [{ label: 'HST', rate: 0.15 }],
    });
    // 1000 + 1998 = 2998; base 4297; HST 644.55 -> 645
    let body = JSON.parse(dataText(await detail(id)));
    expect(body.totals).toEqual({ subtotal: 2998, shipping: 1299, tax: 645, grand_total: 4942 });
    expect([await available(a), await available(b)]).toEqual([6, 8]);

    const one = await cancel(id, { lines: [{ skuId: a, quantity: 1 }] });
    body = JSON.parse(dataText(one));
    expect(body).not.toHaveProperty('status');
    // 750 + 1998 = 2748; base 4047; HST 607.05 -> 607
    expect(body.totals).toEqual({ subtotal: 2748, shipping: 1299, tax: 607, grand_total: 4654 });
    expect(body.tax).toEqual({ lines: [{ label: 'HST', rate: 0.15, amount: 607 }] });
    expect(body.lines.map((l: { sku_id: number; quantity: number }) => [l.sku_id, l.quantity])).toEqual([
      [a, 3],
      [b, 2],
    ]);
    expect([await available(a), await available(b)]).toEqual([7, 8]);

    const lineGone = JSON.parse(dataText(await cancel(id, { lines: [{ skuId: b }] })));
    // 750; base 2049; HST 307.35 -> 307
    expect(lineGone.totals).toEqual({ subtotal: 750, shipping: 1299, tax: 307, grand_total: 2356 });
    expect(lineGone.lines.map((l: { sku_id: number }) => l.sku_id)).toEqual([a]);
    expect([await available(a), await available(b)]).toEqual([7, 10]);

    const whole = JSON.parse(dataText(await cancel(id, { lines: [{ skuId: a, quantity: 3 }] })));
    expect(whole.status).toBe('cancelled');
    expect(whole.totals).toEqual(lineGone.totals);
    expect(whole.lines).toEqual(lineGone.lines);
    expect(await available(a)).toBe(10);
    const events = await webhookEventsOfOrder(api.ctx.pool, id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.cancelled', 'order.cancelled', 'order.cancelled']);
    expect(events[3]!.data).toBe(dataText(await detail(id)));
  });

  it('a seller subscribed to inventory.adjusted gets the restocked units instead', async () => {
    const a = await listing(BIRCH, 300, 5, { externalRef: 'B-ext' });
    const b = await listing(BIRCH, 100, 5);
    const id = `ord_birch_${++n}`;
    await withTransaction(api.ctx.pool, (c) =>
      enterOrder(c, {
        orderId: id,
        sellerId: BIRCH,
        currency: 'CAD',
        customer,
        shippingMethod: 'Tracked',
        lines: [
          { skuId: a, quantity: 2 },
          { skuId: b, quantity: 1 },
        ],
      }),
    );
    const partial = await cancel(id, { lines: [{ skuId: a, quantity: 1 }] }, api.keys.birch);
    expect(partial.status).toBe(200);
    const rest = await cancel(id, undefined, api.keys.birch);
    expect(JSON.parse(dataText(rest)).status).toBe('cancelled');
    const events = await webhookEventsOfOrder(api.ctx.pool, id);
    expect(events.map((e) => [e.type, e.state])).toEqual([
      ['order.created', 'pending'],
      ['inventory.adjusted', 'pending'],
      ['inventory.adjusted', 'pending'],
    ]);
    const { rows } = await api.ctx.pool.query(
      `SELECT to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS t FROM orders WHERE order_id = $1`,
      [id],
    );
    expect(JSON.parse(events[1]!.data)).toEqual({
      seller_id: BIRCH,
      order_id: id,
      created_at: events[1]!.createdAt.toISOString(),
      adjustments: [{ sku_id: a, product_id: 101, quantity: 1, external_ref: 'B-ext' }],
    });
    expect(events[2]!.data).toBe(
      JSON.stringify({
        seller_id: BIRCH,
        order_id: id,
        created_at: rows[0].t,
        adjustments: [
          { sku_id: a, product_id: 101, quantity: 1, external_ref: 'B-ext' },
          { sku_id: b, product_id: 101, quantity: 1, external_ref: null },
        ],
      }),
    );
    expect([await available(a, api.keys.birch), await available(b, api.keys.birch)]).toEqual([5, 5]);
  });

  it('shipping releases the holds; accepting keeps them', async () => {
    const a = await listing(MAPLE, 100, 5);
    const id = await enter({ lines: [{ skuId: a, quantity: 2 }] });
    expect(await available(a)).toBe(3);
    await fulfil(id, { status: 'accepted' });
    expect(await available(a)).toBe(3);
    await fulfil(id, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' });
    expect(await available(a)).toBe(5);
  });
  it("a listing write whose asOf is at or after the order's created_at supersedes its hold (the order does not move)", async () => {
    const a = await listing(MAPLE, 100, 5);
    const id = await enter({ lines: [{ skuId: a, quantity: 2 }] });
    const createdAt: string = JSON.parse(dataText(await detail(id))).created_at;
    const before = await changeOf(id);
    const push = (asOf: string) => request(api.app).post('/listings').set(auth(api.keys.maple)).send({ skuId: a, quantity: 5, asOf });
    expect((await push(new Date(Date.parse(createdAt) - 1).toISOString())).body.data.results[0].status).toBe('applied');
    expect(await available(a)).toBe(3); // pushed before the sale: the hold still counts
    expect((await push(createdAt)).body.data.results[0].status).toBe('applied');
    expect(await available(a)).toBe(5);
    expect(await changeOf(id)).toEqual(before);
  });
});

describe('concurrent moves of one order', () => {
  it('serialize on the order row: one wins, the other sees the new state', async () => {
    const a = await listing(MAPLE, 100, 5);
    for (let round = 0; round < 3; round++) {
      const id = await enter({ lines: [{ skuId: a, quantity: 1 }] });
      // Hold the row lock so both requests are waiting on it before either runs.
      const blocker = await api.ctx.pool.connect();
      let results: request.Response[];
      try {
        await blocker.query('BEGIN');
        await blocker.query('SELECT 1 FROM orders WHERE order_id = $1 FOR UPDATE', [id]);
        const pending = Promise.all([
          fulfil(id, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' }).then((r) => r),
          cancel(id).then((r) => r),
        ]);
        for (let i = 0; i < 200; i++) {
          const { rows } = await api.ctx.pool.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%'`,
          );
          if (rows[0].n >= 2) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        await blocker.query('COMMIT');
        results = await pending;
      } finally {
        blocker.release();
      }
      const [ship, cancelled] = results;
      expect([ship!.status, cancelled!.status].sort()).toEqual([200, 422]);
      const winner = ship!.status === 200 ? 'shipped' : 'cancelled';
      const loser = ship!.status === 200 ? cancelled! : ship!;
      expect(loser.body.error.code).toBe('INVALID_TRANSITION');
      expect(loser.body.error.message).toContain(`Order is ${winner}`);
      expect(JSON.parse(dataText(await detail(id))).status).toBe(winner);
    }
  });
});

describe('OpenAPI', () => {
  it('the four order routes are documented, and real responses validate against their schemas', async () => {
    const doc = openApiDocument() as Record<string, any>;
    const ajv = new Ajv2020({ strict: false });
    const check = (path: string, method: string, res: request.Response) => {
      expect(res.status, res.text).toBe(200);
      const validate = ajv.compile(doc.paths[path][method].responses['200'].content['application/json'].schema);
      expect(validate(res.body), JSON.stringify(validate.errors)).toBe(true);
    };
    const a = await listing(MAPLE, 100, 10);
    const id = await enter({ lines: [{ skuId: a, quantity: 2 }], tax: [{ label: 'HST', rate: 0.15 }] });
    check('/orders/{orderId}', 'get', await detail(id));
    check('/orders', 'get', await poll({ limit: '5' }));
    check('/orders/{orderId}/cancel', 'post', await cancel(id, { lines: [{ skuId: a, quantity: 1 }] }));
    check('/orders/{orderId}/fulfillment', 'patch', await fulfil(id, { status: 'shipped', trackingCompany: 'UPS', trackingNumber: '1Z' }));
    expect(doc.paths['/orders/{orderId}/cancel'].post.requestBody.required).toBe(false);
    // Every route also documents 429, 431 and 503, and body routes 413 (src/api/openapi/document.ts statusesOf).
    expect(Object.keys(doc.paths['/orders/{orderId}/fulfillment'].patch.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '404',
      '413',
      '422',
      '429',
      '431',
      '503',
    ]);
  });
});
