import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { useSellerApi } from '../../../support/seller-api.js';
import { MAPLE, sellerApp } from '../../../support/seller-seed.js';
import { signCursor } from '../../../../src/lib/cursor.js';
import { exportCursorKind } from '../../../../src/api/routes/seller/listings-export.js';
import { createApp } from '../../../../src/api/app.js';
import { sellerRoutes } from '../../../../src/api/routes/seller/index.js';
import { healthRoutes } from '../../../../src/api/routes/health.js';
import { createPool } from '../../../../src/db/pool.js';
import { createLogger } from '../../../../src/lib/logger.js';
import { appDeps } from '../../../support/app.js';

// Seller listing writes and export at their edges, against a real PostgreSQL: one request that
// creates and deletes, instants PostgreSQL cannot store, forged cursors, one seller's load.

const api = useSellerApi();
const { auth, get, post } = api;

async function stored(skuId: number, key = api.keys.maple) {
  const res = await get('/listings?include_deleted=true&limit=1000', key);
  expect(res.status).toBe(200);
  return (res.body.data.items as { skuId: number }[]).find((i) => i.skuId === skuId) as Record<string, unknown> | undefined;
}

describe('create and delete in one request', () => {
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

describe('instants outside what PostgreSQL stores', () => {
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

describe('forged and foreign cursors', () => {
  const forge = (payload: unknown, sellerId = MAPLE) => signCursor(api.ctx.env.CURSOR_SECRET, exportCursorKind(sellerId), payload);

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
    await post(
      '/listings',
      [1001, 1002].map((skuId) => ({ skuId, productId: 101, price: 5, quantity: 1 })),
      api.keys.birch,
    );
    const first = await get('/listings?limit=1', api.keys.birch);
    const cursor = first.body.data.nextCursor as string;
    expect(cursor).toBeTruthy();
    expect((await get(`/listings?cursor=${encodeURIComponent(cursor)}`, api.keys.birch)).status).toBe(200);
    const other = await get(`/listings?cursor=${encodeURIComponent(cursor)}`, api.keys.maple);
    expect(other.status).toBe(400);
    expect(other.body.error.details[0].field).toBe('cursor');
  });
});

describe('one seller cannot starve the pool', () => {
  const LOCK = 'SELECT pg_advisory_lock(1280442369, $1)';
  const UNLOCK = 'SELECT pg_advisory_unlock(1280442369, $1)';
  /**
   * Resolves once n backends wait on an advisory lock (the held seller lock) in this file's
   * database: pg_locks lists the whole server, where other test files' backends wait on their own.
   */
  async function waiters(n: number) {
    for (let i = 0; i < 400; i++) {
      const { rows } = await api.ctx.pool.query(
        `SELECT count(*)::int AS n FROM pg_locks
         WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      if (rows[0].n >= n) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('no request is waiting on the seller lock');
  }

  it('caps concurrent writes per seller: 429 RATE_LIMITED with Retry-After beyond it; other sellers go on', async () => {
    const capped = sellerApp(api.ctx, { SELLER_MAX_CONCURRENT_WRITES: 1 });
    const holder = await api.ctx.pool.connect();
    try {
      await holder.query(LOCK, [MAPLE]);
      const first = request(capped)
        .post('/listings')
        .set(auth(api.keys.maple))
        .send({ skuId: 1001, productId: 101, price: 9, quantity: 1 })
        .then((r) => r);
      await waiters(1);
      const second = await request(capped)
        .post('/listings/bulk')
        .set(auth(api.keys.maple))
        .send({ items: [{ op: 'delete', skuId: 1002 }] });
      expect(second.status).toBe(429);
      expect(second.body.error.code).toBe('RATE_LIMITED');
      expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
      expect((await request(capped).post('/listings').set(auth(api.keys.birch)).send({ skuId: 2001, productId: 102, price: 1, quantity: 1 })).status).toBe(
        200,
      );
      await holder.query(UNLOCK, [MAPLE]);
      expect((await first).status).toBe(200);
      // The slot is free again.
      expect(
        (
          await request(capped)
            .post('/listings/bulk')
            .set(auth(api.keys.maple))
            .send({ items: [{ op: 'delete', skuId: 1002 }] })
        ).status,
      ).toBe(200);
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()');
      holder.release();
    }
  });

  it('statement timeout and connection wait timeout answer 503; auth and /readyz use their own small pool', async () => {
    // The statement timeout is long beside the connection timeout, so that on a busy machine the
    // second request still finds the one main connection taken.
    const pool = createPool(api.ctx.databaseUrl, 1, undefined, { statementTimeoutMs: 6000, connectionTimeoutMs: 200 });
    const authPool = createPool(api.ctx.databaseUrl, 2);
    const deps = appDeps({ env: api.ctx.env, pool, authPool, es: api.ctx.es, index: api.ctx.index, logger: createLogger('silent') });
    const a = createApp(deps, [...sellerRoutes, healthRoutes]);
    const holder = await api.ctx.pool.connect();
    try {
      await holder.query(LOCK, [MAPLE]);
      const stuck = request(a)
        .post('/listings')
        .set(auth(api.keys.maple))
        .send({ skuId: 1001, productId: 101, price: 8, quantity: 1 })
        .then((r) => r);
      await waiters(1);
      // The one main connection is taken: another seller's read waits at most the connection timeout.
      const other = await request(a).get('/me').set(auth(api.keys.birch));
      expect(other.status).toBe(503);
      expect(other.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect((await request(a).get('/readyz')).status).toBe(200);
      // The stuck write gives up at the statement timeout: 503, nothing written.
      const res = await stuck;
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()');
      holder.release();
      deps.services.degraded.stop();
      await pool.end();
      await authPool.end();
    }
    expect((await stored(1001))?.price).not.toBe(8);
  });
});
