import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { useSellerApi } from '../../../support/seller-api.js';
import { MAPLE } from '../../../support/seller-seed.js';

// A Platform's life through the seller API, against a real PostgreSQL: create, partially update,
// stale pushes, delete, revive, purge, export across pages with every filter, store counts.

const api = useSellerApi();
const { auth, get, post } = api;

interface ExportItem {
  skuId: number;
  productId: number;
  matchStatus: string;
  quantity: number;
  available: number;
  price: number;
  externalRef: string | null;
  browsable: boolean;
  deletedAt: string | null;
  updatedAt: string;
}

/** Every page of GET /listings with these query params (limit small), and the pages' sizes. */
async function exportAll(query: Record<string, string>, key = api.keys.maple): Promise<{ items: ExportItem[]; pages: number[] }> {
  const items: ExportItem[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  do {
    const res = await request(api.app)
      .get('/listings')
      .set(auth(key))
      .query(cursor ? { ...query, cursor } : query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    items.push(...res.body.data.items);
    pages.push(res.body.data.items.length);
    cursor = res.body.data.nextCursor;
    if (pages.length > 100) throw new Error('cursor loop');
  } while (cursor);
  return { items, pages };
}

async function listing(skuId: number, key = api.keys.maple): Promise<ExportItem | undefined> {
  const { items } = await exportAll({ include_deleted: 'true', limit: '1000' }, key);
  return items.find((i) => i.skuId === skuId);
}

async function counts(key = api.keys.maple) {
  const res = await get('/me', key);
  expect(res.status).toBe(200);
  return res.body.data.counts;
}

describe('listing writes', () => {
  it('POST /listings: one object creates a matched listing and echoes externalRef', async () => {
    const res = await post('/listings', { skuId: 1001, productId: 101, price: 250, quantity: 4, externalRef: 'A-1' });
    expect(res.status).toBe(200);
    expect(res.headers['x-service-api-version']).toBe('2026-07');
    expect(res.body).toEqual({ success: true, data: { results: [{ skuId: 1001, op: 'upsert', status: 'applied', externalRef: 'A-1' }] } });
    expect(await listing(1001)).toMatchObject({
      skuId: 1001,
      productId: 101,
      matchStatus: 'matched',
      quantity: 4,
      available: 4,
      price: 250,
      externalRef: 'A-1',
      browsable: true,
      deletedAt: null,
    });
  });

  it('POST /listings: an array reports every item on its own; bad items do not fail the batch', async () => {
    const res = await post('/listings', [
      { skuId: 1002, productId: 101, price: 100, quantity: 1 },
      { skuId: 9999, productId: 555, price: 100, quantity: 2, externalRef: 'U-1' }, // not in catalog
      { skuId: 1003, productId: 101, price: 100, quantity: -1, externalRef: 'NEG' },
      { skuId: 2001, productId: 101, price: 100, quantity: 1 }, // sku 2001 is product 102
      { skuId: 1003, productId: 101, price: 'abc', quantity: 1 },
      42,
      { skuId: 1003, price: 5 }, // new listing without productId/quantity
      { skuId: 1003, productId: 101, price: 5, quantity: 1, colour: 'red' }, // unknown field
      { skuId: 1003, productId: 101, price: 5, quantity: 1, asOf: 'yesterday' },
      { skuId: 1003, productId: 101, price: 5, quantity: 1, externalRef: 'x'.repeat(256) },
      { skuId: 3_000_000_000, productId: 101, price: 5, quantity: 1 },
    ]);
    expect(res.status).toBe(200);
    const results = res.body.data.results;
    expect(results).toHaveLength(11);
    expect(results[0]).toEqual({ skuId: 1002, op: 'upsert', status: 'applied' });
    expect(results[1]).toEqual({ skuId: 9999, op: 'upsert', status: 'unmatched', externalRef: 'U-1' });
    expect(results[2]).toMatchObject({
      skuId: 1003,
      status: 'rejected',
      externalRef: 'NEG',
      reason: expect.stringContaining('quantity must not be negative'),
    });
    expect(results[3]).toMatchObject({ skuId: 2001, status: 'rejected', reason: expect.stringContaining('contradicts the catalog') });
    expect(results[4]).toMatchObject({ skuId: 1003, status: 'rejected', reason: expect.stringContaining('price') });
    expect(results[5]).toMatchObject({ skuId: 0, op: 'upsert', status: 'rejected' });
    expect(results[6]).toMatchObject({ status: 'rejected', reason: 'a new listing needs productId, quantity' });
    expect(results[7]).toMatchObject({ status: 'rejected', reason: expect.stringContaining('colour') });
    expect(results[8]).toMatchObject({ status: 'rejected', reason: expect.stringContaining('asOf') });
    expect(results[9]).toMatchObject({ status: 'rejected', reason: expect.stringContaining('externalRef') });
    expect(results[9].externalRef).toBeUndefined();
    expect(results[10]).toMatchObject({ skuId: 3_000_000_000, status: 'rejected' });
    for (const r of results.filter((r: { status: string }) => r.status !== 'rejected')) expect(r.reason).toBeUndefined();

    expect(await listing(9999)).toMatchObject({ matchStatus: 'unmatched', productId: 555, browsable: false, quantity: 2 });
    expect(await listing(1003)).toBeUndefined(); // rejected items are not persisted
    expect(await listing(2001)).toBeUndefined();
    expect(await counts()).toEqual({ total: 3, matched: 2, unmatched: 1, browsable: 2 });
  });

  it('a partial update keeps stored values; explicit null clears externalRef', async () => {
    let res = await post('/listings', { skuId: 1001, quantity: 7 });
    expect(res.body.data.results[0]).toEqual({ skuId: 1001, op: 'upsert', status: 'applied' });
    expect(await listing(1001)).toMatchObject({ productId: 101, price: 250, quantity: 7, externalRef: 'A-1' });
    res = await post('/listings', { skuId: 1001, externalRef: null });
    expect(res.body.data.results[0].externalRef).toBeUndefined();
    expect(await listing(1001)).toMatchObject({ price: 250, quantity: 7, externalRef: null });
  });

  it('an identical push is a no-op: updated_at does not move', async () => {
    await post('/listings', { skuId: 1002, productId: 101, price: 111, quantity: 3 });
    const before = await listing(1002);
    await new Promise((r) => setTimeout(r, 20));
    const res = await post('/listings', { skuId: 1002, productId: 101, price: 111, quantity: 3 });
    expect(res.body.data.results[0].status).toBe('applied');
    expect((await listing(1002))!.updatedAt).toBe(before!.updatedAt);
  });

  it('asOf: earlier than stored is rejected as stale and not persisted; equal, later or absent apply', async () => {
    const t1 = '2026-11-01T10:00:00.000001Z';
    const t0 = '2026-11-01T10:00:00Z';
    let res = await post('/listings', { skuId: 1001, quantity: 5, asOf: t1 });
    expect(res.body.data.results[0].status).toBe('applied');
    res = await post('/listings', { skuId: 1001, quantity: 1, asOf: t0, externalRef: 'OLD' });
    expect(res.body.data.results[0]).toMatchObject({ status: 'rejected', externalRef: 'OLD', reason: expect.stringMatching(/^stale/) });
    expect((await listing(1001))!.quantity).toBe(5);
    // Same instant in another offset, with microseconds: equal, so not stale.
    res = await post('/listings', { skuId: 1001, quantity: 6, asOf: '2026-11-01T12:00:00.000001+02:00' });
    expect(res.body.data.results[0].status).toBe('applied');
    res = await post('/listings', { skuId: 1001, quantity: 8 }); // no asOf: never stale
    expect(res.body.data.results[0].status).toBe('applied');
    expect((await listing(1001))!.quantity).toBe(8);
  });

  it('bulk: delete, delete of absent, include_deleted, revive, stale delete, bad ops', async () => {
    let res = await post('/listings/bulk', {
      items: [
        { op: 'delete', skuId: 1002, externalRef: 'D-1' },
        { op: 'delete', skuId: 4242 },
        { op: 'delete', skuId: 1001, asOf: '2026-01-01T00:00:00Z' }, // stale against 2026-11-01
        { op: 'frobnicate', skuId: 1001 },
        { skuId: 1001 },
        { op: 'delete' },
        { op: 'upsert', skuId: 2001, productId: 102, price: 900, quantity: 2 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.results).toEqual([
      { skuId: 1002, op: 'delete', status: 'applied', externalRef: 'D-1' },
      { skuId: 4242, op: 'delete', status: 'applied' },
      { skuId: 1001, op: 'delete', status: 'rejected', reason: expect.stringMatching(/^stale/) },
      { skuId: 1001, op: 'upsert', status: 'rejected', reason: expect.any(String) },
      { skuId: 1001, op: 'upsert', status: 'rejected', reason: expect.any(String) },
      { skuId: 0, op: 'delete', status: 'rejected', reason: expect.stringContaining('skuId') },
      { skuId: 2001, op: 'upsert', status: 'applied' },
    ]);
    const deleted = await listing(1002);
    expect(deleted).toMatchObject({ browsable: false, deletedAt: expect.any(String) });
    const live = await exportAll({});
    expect(live.items.map((i) => i.skuId).sort()).toEqual([1001, 2001, 9999]);
    expect(await counts()).toEqual({ total: 3, matched: 2, unmatched: 1, browsable: 2 });

    // Deleting again is applied and keeps the original deletedAt.
    res = await post('/listings/bulk', { items: [{ op: 'delete', skuId: 1002 }] });
    expect(res.body.data.results[0].status).toBe('applied');
    expect((await listing(1002))!.deletedAt).toBe(deleted!.deletedAt);

    // An upsert revives it, keeping stored values it does not name.
    res = await post('/listings/bulk', { items: [{ op: 'upsert', skuId: 1002, quantity: 9 }] });
    expect(res.body.data.results[0]).toEqual({ skuId: 1002, op: 'upsert', status: 'applied' });
    expect(await listing(1002)).toMatchObject({ deletedAt: null, price: 111, quantity: 9, browsable: true });
  });

  it('items for the same sku apply in order; the last one wins', async () => {
    const res = await post('/listings/bulk', {
      items: [
        { op: 'upsert', skuId: 1003, productId: 101, price: 10, quantity: 1, asOf: '2026-11-05T00:00:00Z' },
        { op: 'upsert', skuId: 1003, price: 20, asOf: '2026-11-04T00:00:00Z' }, // stale against the first
        { op: 'delete', skuId: 1003 },
        { op: 'upsert', skuId: 1003, productId: 101, price: 30, quantity: 3 },
      ],
    });
    expect(res.body.data.results.map((r: { status: string }) => r.status)).toEqual(['applied', 'rejected', 'applied', 'applied']);
    expect(await listing(1003)).toMatchObject({ price: 30, quantity: 3, deletedAt: null });
  });

  it('bulk with a body that is not {items: [...]} is a 400 naming the field', async () => {
    for (const body of [{}, { items: 'x' }, { items: [], extra: 1 }, [1, 2]]) {
      const res = await post('/listings/bulk', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: expect.any(String) })]));
    }
  });

  it('POST /listings with a non-object, non-array body is a 400', async () => {
    for (const raw of ['"text"', '42', 'null', 'true']) {
      const res = await request(api.app).post('/listings').set(auth(api.keys.maple)).set('Content-Type', 'application/json').send(raw);
      expect(res.status, raw).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
    const noBody = await request(api.app).post('/listings').set(auth(api.keys.maple));
    expect(noBody.status).toBe(400);
    const malformed = await request(api.app).post('/listings').set(auth(api.keys.maple)).set('Content-Type', 'application/json').send('{"skuId":');
    expect(malformed.status).toBe(400);
    const text = await request(api.app).post('/listings').set(auth(api.keys.maple)).set('Content-Type', 'text/plain').send('skuId=1');
    expect(text.status).toBe(400);
  });

  it('more than 1000 items is 413 BATCH_TOO_LARGE and writes nothing; exactly 1000 is fine', async () => {
    const many = (n: number, offset: number) =>
      Array.from({ length: n }, (_, i) => ({ skuId: 500_000 + offset + i, productId: 101, price: 1, quantity: 1 }));
    const before = await counts();
    let res = await post('/listings', many(1001, 0));
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('BATCH_TOO_LARGE');
    res = await post('/listings/bulk', { items: many(1001, 0).map((i) => ({ op: 'upsert', ...i })) });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('BATCH_TOO_LARGE');
    expect(await counts()).toEqual(before);

    res = await post('/listings/bulk', { items: many(1000, 0).map((i) => ({ op: 'upsert', ...i })) });
    expect(res.status).toBe(200);
    expect(res.body.data.results.every((r: { status: string }) => r.status === 'unmatched')).toBe(true);
    expect((await counts()).unmatched).toBe(before.unmatched + 1000);
    res = await post('/listings/bulk', { items: many(1000, 0).map((i) => ({ op: 'delete', skuId: i.skuId })) });
    expect(res.status).toBe(200);
    expect(await counts()).toEqual(before);
  });
});

describe('export', () => {
  it('pages through every listing exactly once in (updatedAt, id) order, with every filter', async () => {
    // 20 more listings, written one request at a time so their updatedAt differ.
    for (let i = 0; i < 20; i++) {
      await post('/listings', { skuId: 600_000 + i, productId: 101, price: 100 + i, quantity: 1, externalRef: `P-${i}` });
    }
    const everything = await exportAll({ include_deleted: 'true', limit: '1000' });
    const live = everything.items.filter((i) => i.deletedAt === null);

    const paged = await exportAll({ limit: '3' });
    expect(paged.pages.slice(0, -1).every((n) => n === 3)).toBe(true);
    expect(paged.items.map((i) => i.skuId)).toEqual(live.map((i) => i.skuId));
    expect(new Set(paged.items.map((i) => i.skuId)).size).toBe(paged.items.length);
    const times = paged.items.map((i) => Date.parse(i.updatedAt));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    const withDeleted = await exportAll({ limit: '97', include_deleted: 'true' }); // ~1000 deleted rows
    expect(withDeleted.pages.length).toBeGreaterThan(2);
    expect(withDeleted.items.map((i) => i.skuId)).toEqual(everything.items.map((i) => i.skuId));
    expect(withDeleted.items.some((i) => i.deletedAt !== null)).toBe(true);

    // updated_since is inclusive: starting at the 10th listing's updatedAt includes it.
    const pivot = paged.items[paged.items.length - 10]!;
    const since = await exportAll({ limit: '2', updated_since: pivot.updatedAt });
    expect(since.items[0]!.skuId).toBe(pivot.skuId);
    expect(since.items.map((i) => i.skuId)).toEqual(paged.items.slice(-10).map((i) => i.skuId));

    // Default page size is 100.
    const first = await get('/listings');
    expect(first.body.data.items.length).toBe(Math.min(100, live.length));
  });

  it('validates the query: limit range, unknown parameters, dates, booleans', async () => {
    for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'limit=1.5', 'limit=2&limit=3', 'include_deleted=yes', 'updated_since=yesterday', 'cursor=']) {
      const res = await get(`/listings?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details.length, q).toBeGreaterThan(0);
    }
    expect((await get('/listings?limit=1000')).status).toBe(200);
    expect((await get('/listings?limit=1000&_=123')).status).toBe(200); // unknown parameters are ignored
  });

  it('a malformed or tampered cursor is 400; so is a cursor used with different filters', async () => {
    const page = await get('/listings?limit=2');
    const cursor: string = page.body.data.nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const [body, sig] = cursor.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, id: payload.id + 1000 })).toString('base64url');
    for (const bad of ['nonsense', `${forged}.${sig}`, `${body}.${sig.slice(0, -2)}AA`, `${body}`]) {
      const res = await get(`/listings?cursor=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
    expect((await get(`/listings?cursor=${cursor}&include_deleted=true`)).status).toBe(400);
    expect((await get(`/listings?cursor=${cursor}&include_deleted=false&limit=5`)).status).toBe(200);
  });

  it('available subtracts outstanding holds until a write with asOf at or after the order', async () => {
    await post('/listings', { skuId: 1001, productId: 101, price: 250, quantity: 5, asOf: '2026-11-02T00:00:00Z' });
    await api.ctx.pool.query(`
      INSERT INTO orders (order_id, seller_id, status, created_at) VALUES
        ('o-1', ${MAPLE}, 'created', '2026-11-03T00:00:00Z'),
        ('o-2', ${MAPLE}, 'accepted', '2026-11-03T01:00:00Z'),
        ('o-3', ${MAPLE}, 'shipped', '2026-11-03T02:00:00Z');
      INSERT INTO holds (order_id, seller_id, sku_id, quantity) VALUES
        ('o-1', ${MAPLE}, 1001, 2), ('o-2', ${MAPLE}, 1001, 1), ('o-3', ${MAPLE}, 1001, 4);`);
    expect(await listing(1001)).toMatchObject({ quantity: 5, available: 2 });
    // A push at/after o-1 but before o-2 supersedes o-1's hold only.
    await post('/listings', { skuId: 1001, quantity: 3, asOf: '2026-11-03T00:00:00Z' });
    expect(await listing(1001)).toMatchObject({ quantity: 3, available: 2 });
    // Never negative.
    await post('/listings', { skuId: 1001, quantity: 0 });
    expect(await listing(1001)).toMatchObject({ quantity: 0, available: 0 });
    await post('/listings', { skuId: 1001, quantity: 4, asOf: '2026-11-04T00:00:00Z' });
    expect(await listing(1001)).toMatchObject({ quantity: 4, available: 4 });
  });
});

describe('store status and vacation', () => {
  it('vacation hides every listing: browsable false everywhere, counts.browsable 0, prerequisite with its action', async () => {
    const on = await request(api.app).patch('/me').set(auth(api.keys.maple)).send({ vacation: true });
    expect(on.status).toBe(200);
    const me = on.body.data;
    expect(me).toMatchObject({ sellerCode: 'maple', storeName: 'Maple Cards', currency: 'CAD', region: 'CA', active: true, vacation: true });
    expect(me.counts.browsable).toBe(0);
    expect(me.counts.total).toBe(me.counts.matched + me.counts.unmatched);
    expect(me.readiness).toEqual({
      browseEligible: false,
      effectiveTermsVersion: '2026-07',
      incompletePrerequisites: [
        { code: 'VACATION_DISABLED', message: expect.any(String), action: { type: 'toggle_vacation', method: 'PATCH', href: '/me' } },
      ],
    });
    const { items } = await exportAll({ limit: '1000' });
    expect(items.every((i) => !i.browsable)).toBe(true);

    const off = await request(api.app).patch('/me').set(auth(api.keys.maple)).send({ vacation: false });
    expect(off.body.data.vacation).toBe(false);
    expect(off.body.data.readiness).toEqual({ browseEligible: true, effectiveTermsVersion: '2026-07', incompletePrerequisites: [] });
    expect(off.body.data.counts.browsable).toBe(off.body.data.counts.matched);
    expect((await exportAll({ limit: '1000' })).items.filter((i) => i.browsable).length).toBe(off.body.data.counts.matched);
  });

  it('PATCH /me validates its body strictly', async () => {
    for (const body of [{}, { vacation: 'yes' }, { vacation: true, active: true }]) {
      const res = await request(api.app).patch('/me').set(auth(api.keys.maple)).send(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details.length).toBeGreaterThan(0);
    }
    const none = await request(api.app).patch('/me').set(auth(api.keys.maple));
    expect(none.status).toBe(400);
  });

  it('lists incomplete prerequisites in the contract order, with the accepted terms version', async () => {
    await api.ctx.pool.query(`
      UPDATE sellers SET terms_version = '2025-01', active = false, vacation = true WHERE seller_id = ${MAPLE};
      INSERT INTO seller_prerequisites (seller_id, code) VALUES (${MAPLE}, 'BILLING_TERMS_ACCEPTED'), (${MAPLE}, 'TAX_PROFILE_COMPLETE');`);
    const res = await get('/me');
    expect(res.status).toBe(200);
    const r = res.body.data.readiness;
    expect(r.browseEligible).toBe(false);
    expect(r.effectiveTermsVersion).toBe('2025-01');
    expect(r.incompletePrerequisites.map((p: { code: string }) => p.code)).toEqual([
      'SELLER_ACTIVE',
      'VACATION_DISABLED',
      'CURRENT_SELLER_TERMS_ACCEPTED',
      'TAX_PROFILE_COMPLETE',
      'BILLING_TERMS_ACCEPTED',
    ]);
    for (const p of r.incompletePrerequisites) {
      expect(p.message.length).toBeGreaterThan(10);
      expect(['GET', 'POST', 'PATCH']).toContain(p.action.method);
      expect(p.action.href).toMatch(/^\//);
    }
    expect(res.body.data.active).toBe(false);
    expect(res.body.data.counts.browsable).toBe(0);
    await api.ctx.pool.query(`
      UPDATE sellers SET terms_version = '2026-07', active = true, vacation = false WHERE seller_id = ${MAPLE};
      DELETE FROM seller_prerequisites WHERE seller_id = ${MAPLE};`);
    expect((await get('/me')).body.data.readiness.browseEligible).toBe(true);
  });

  it('purge soft-deletes every live listing and returns the count', async () => {
    const before = await counts();
    expect(before.total).toBeGreaterThan(0);
    const res = await post('/listings/purge', undefined);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { purged: before.total } });
    expect(await counts()).toEqual({ total: 0, matched: 0, unmatched: 0, browsable: 0 });
    expect((await exportAll({})).items).toEqual([]);
    expect((await post('/listings/purge', undefined)).body.data.purged).toBe(0);
    // Revive one after the purge.
    await post('/listings', { skuId: 1001, quantity: 1 });
    expect(await counts()).toEqual({ total: 1, matched: 1, unmatched: 0, browsable: 1 });
  });
});
