import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../support/context.js';
import { MAPLE, seedSellerApi, sellerApp } from '../support/seller-seed.js';
import { signCursor } from '../../src/lib/cursor.js';
import { exportCursorKind } from '../../src/api/routes/seller/listings-export.js';

// Issue 15 (hardening), seller listing writes and export against a real PostgreSQL.

let ctx: TestContext;
let app: Express;
let keys: { maple: string; birch: string; ledger: string };

beforeAll(async () => {
  ctx = await createTestContext();
  keys = await seedSellerApi(ctx);
  app = sellerApp(ctx);
});
afterAll(async () => {
  await ctx?.close();
});

const auth = (key: string) => ({ Authorization: `Bearer ${key}` });
const post = (path: string, body: unknown, key = keys.maple) => request(app).post(path).set(auth(key)).send(body as object);
const get = (path: string, key = keys.maple) => request(app).get(path).set(auth(key));

async function stored(skuId: number, key = keys.maple) {
  const res = await get('/listings?include_deleted=true&limit=1000', key);
  expect(res.status).toBe(200);
  return (res.body.data.items as { skuId: number }[]).find((i) => i.skuId === skuId) as Record<string, unknown> | undefined;
}

describe('defect 1: create and delete in one request', () => {
  it('leaves a soft-deleted listing with the upsert values; a later partial upsert revives it', async () => {
    const res = await post('/listings/bulk', {
      items: [
        { op: 'upsert', skuId: 1003, productId: 101, price: 700, quantity: 2, externalRef: 'CD-1' },
        { op: 'delete', skuId: 1003 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.results.map((r: { status: string }) => r.status)).toEqual(['applied', 'applied']);
    const row = await stored(1003);
    expect(row).toMatchObject({ skuId: 1003, productId: 101, price: 700, quantity: 2, externalRef: 'CD-1', browsable: false });
    expect(row?.deletedAt).not.toBeNull();

    const revive = await post('/listings/bulk', { items: [{ op: 'upsert', skuId: 1003, quantity: 3 }] });
    expect(revive.body.data.results).toEqual([{ skuId: 1003, op: 'upsert', status: 'applied' }]);
    expect(await stored(1003)).toMatchObject({ price: 700, quantity: 3, externalRef: 'CD-1', deletedAt: null });
  });
});

describe('defect 2: instants outside what PostgreSQL stores', () => {
  it('updated_since out of range (after applying the offset) is a 400, never a 500', async () => {
    for (const t of ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59-01:00', '0001-01-01T00:00:00+01:00']) {
      const res = await get(`/listings?updated_since=${encodeURIComponent(t)}`);
      expect(res.status, t).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details[0].field).toBe('updated_since');
    }
    for (const t of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z', '9999-12-31T23:59:59.999999Z']) {
      expect((await get(`/listings?updated_since=${encodeURIComponent(t)}`)).status, t).toBe(200);
    }
  });

  it('a bad asOf rejects only its own item; the good item of the batch is applied', async () => {
    const res = await post('/listings/bulk', {
      items: [
        { op: 'upsert', skuId: 2001, productId: 102, price: 100, quantity: 1, asOf: '2026-11-01T00:00:00Z' },
        { op: 'upsert', skuId: 1002, productId: 101, price: 100, quantity: 1, asOf: '0001-01-01T00:00:00+01:00' },
        { op: 'delete', skuId: 1001, asOf: '9999-12-31T23:59:59-01:00' },
      ],
    });
    expect(res.status).toBe(200);
    const results = res.body.data.results as { status: string; reason?: string }[];
    expect(results.map((r) => r.status)).toEqual(['applied', 'rejected', 'rejected']);
    expect(results[1]!.reason).toMatch(/asOf/);
    expect(await stored(2001)).toMatchObject({ price: 100, deletedAt: null });
    expect(await stored(1002)).toBeUndefined();
    const single = await post('/listings', [{ skuId: 1002, productId: 101, price: 1, quantity: 1, asOf: '0000-12-31T23:00:00-01:00' }]);
    expect(single.status).toBe(200);
    expect(single.body.data.results[0].status).toBe('rejected');
  });
});

describe('defect 3: forged and foreign cursors', () => {
  const forge = (payload: unknown, sellerId = MAPLE) => signCursor(ctx.env.CURSOR_SECRET, exportCursorKind(sellerId), payload);

  it('a cursor signed with the secret but carrying an impossible field is a 400, never a 500', async () => {
    const bad = [
      { t: '2024-99-99T99:99:99.000000Z', id: 1, s: null, d: false },
      { t: '0000-01-01T00:00:00.000000Z', id: 1, s: null, d: false },
      { t: '2026-01-01T00:00:00.000000Z', id: 1, s: '0000-01-01T00:00:00.000000Z', d: false },
      { t: '2026-01-01T00:00:00.000000Z', id: 1, s: 'yesterday', d: false },
      { t: '2026-01-01T00:00:00.000000Z', id: 1e300, s: null, d: false },
    ];
    for (const p of bad) {
      const res = await get(`/listings?cursor=${forge(p)}`);
      expect(res.status, JSON.stringify(p)).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
    expect((await get(`/listings?cursor=${forge({ t: '2026-01-01T00:00:00.000000Z', id: 1, s: null, d: false })}`)).status).toBe(200);
  });

  it('a seller cursor is bound to the seller that received it', async () => {
    await post('/listings', [1001, 1002].map((skuId) => ({ skuId, productId: 101, price: 5, quantity: 1 })), keys.birch);
    const first = await get('/listings?limit=1', keys.birch);
    const cursor = first.body.data.nextCursor as string;
    expect(cursor).toBeTruthy();
    expect((await get(`/listings?cursor=${encodeURIComponent(cursor)}`, keys.birch)).status).toBe(200);
    const other = await get(`/listings?cursor=${encodeURIComponent(cursor)}`, keys.maple);
    expect(other.status).toBe(400);
    expect(other.body.error.details[0].field).toBe('cursor');
  });
});
