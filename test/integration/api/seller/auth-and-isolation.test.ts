import { describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { useSellerApi } from '../../../support/seller-api.js';
import { BIRCH, MAPLE, sellerApp } from '../../../support/seller-seed.js';
import { issueApiKey, listApiKeys, revokeAllApiKeys, revokeApiKey } from '../../../../src/db/api-keys.js';
import { publicRateLimit } from '../../../../src/api/middleware/rate-limit.js';
import type { RouteModule } from '../../../../src/api/app.js';

// Authentication, version header, source exclusivity, rate limits and seller isolation.

const api = useSellerApi();
const { auth } = api;

/** Every seller route, as [method, path, body]. */
const ROUTES: Array<['get' | 'post' | 'patch', string, unknown]> = [
  ['post', '/listings', { skuId: 1001, productId: 101, price: 1, quantity: 1 }],
  ['post', '/listings/bulk', { items: [] }],
  ['post', '/listings/purge', undefined],
  ['get', '/listings', undefined],
  ['get', '/me', undefined],
  ['patch', '/me', { vacation: false }],
];

function call(a: Express, [method, path, body]: (typeof ROUTES)[number], headers: Record<string, string>) {
  const r = request(a)[method](path).set(headers);
  return body === undefined ? r : r.send(body as object);
}

describe('authentication', () => {
  const HEX = 'ab'.repeat(16);
  const bad: Array<[string, Record<string, string>]> = [
    ['missing', {}],
    ['empty bearer', { Authorization: 'Bearer ' }],
    ['other scheme', { Authorization: `Basic ${Buffer.from('maple:x').toString('base64')}` }],
    ['malformed key', { Authorization: 'Bearer not-a-key' }],
    ['short secret', { Authorization: `Bearer mp_maple_${'ab'.repeat(15)}` }],
    ['unknown secret', { Authorization: `Bearer mp_maple_${HEX}` }],
    ['unknown seller', { Authorization: `Bearer mp_nobody_${HEX}` }],
  ];

  it.each(bad)('%s key: 401 UNAUTHORIZED with one message on every seller route', async (_name, headers) => {
    for (const route of ROUTES) {
      const res = await call(api.app, route, headers);
      expect(res.status, `${route[0]} ${route[1]}`).toBe(401);
      expect(res.body).toEqual({ success: false, error: { code: 'UNAUTHORIZED', message: 'Missing or invalid API key' } });
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.headers['x-service-api-version']).toBe('2026-07');
    }
  });

  it('a key of one seller with another seller code in its prefix is refused', async () => {
    const secret = api.keys.birch.slice(api.keys.birch.lastIndexOf('_') + 1);
    const res = await request(api.app)
      .get('/me')
      .set(auth(`mp_maple_${secret}`));
    expect(res.status).toBe(401);
  });

  it('every valid key works; a revoked key is refused with the same 401; other keys stay valid', async () => {
    const second = await issueApiKey(api.ctx.pool, 'maple', 'second');
    for (const key of [api.keys.maple, second.key]) {
      const res = await request(api.app).get('/me').set(auth(key));
      expect(res.status).toBe(200);
      expect(res.body.data.sellerCode).toBe('maple');
    }
    expect(await revokeApiKey(api.ctx.pool, second.key)).toBe(true);
    expect(await revokeApiKey(api.ctx.pool, second.key)).toBe(false);
    const revoked = await request(api.app).get('/me').set(auth(second.key));
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.message).toBe('Missing or invalid API key');
    expect((await request(api.app).get('/me').set(auth(api.keys.maple))).status).toBe(200);

    const listed = await listApiKeys(api.ctx.pool, 'maple');
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatchObject({ label: 'second', revokedAt: expect.any(Date), prefix: second.key.slice(0, 'mp_maple_'.length + 8) });
    expect(listed[1]!.revokedAt).toBeNull();
    // Only the hash is stored.
    const { rows } = await api.ctx.pool.query(`SELECT encode(key_hash, 'hex') AS h FROM api_keys WHERE seller_id = $1`, [MAPLE]);
    expect(JSON.stringify(rows)).not.toContain(second.key.slice(-32));
  });

  it('revoke --all revokes every key of the seller only', async () => {
    const extra = await issueApiKey(api.ctx.pool, 'birch', null);
    const other = await issueApiKey(api.ctx.pool, 'birch', null);
    expect(await revokeAllApiKeys(api.ctx.pool, 'birch')).toBe(3);
    for (const k of [api.keys.birch, extra.key, other.key]) expect((await request(api.app).get('/me').set(auth(k))).status).toBe(401);
    expect((await request(api.app).get('/me').set(auth(api.keys.maple))).status).toBe(200);
    api.keys.birch = (await issueApiKey(api.ctx.pool, 'birch', 'renewed')).key;
    expect((await request(api.app).get('/me').set(auth(api.keys.birch))).status).toBe(200);
  });
});

describe('version header', () => {
  it('an unsupported version is 400 UNSUPPORTED_API_VERSION, checked before authentication', async () => {
    for (const headers of [{ 'X-Service-Api-Version': '2020-01' }, { 'X-Service-Api-Version': '2020-01', ...auth(api.keys.maple) }]) {
      for (const route of ROUTES) {
        const res = await call(api.app, route, headers);
        expect(res.status, `${route[0]} ${route[1]}`).toBe(400);
        expect(res.body.error.code).toBe('UNSUPPORTED_API_VERSION');
        expect(res.headers['x-service-api-version']).toBe('2026-07');
      }
    }
  });

  it('the current version or none is served, and the response names it', async () => {
    for (const headers of [{}, { 'X-Service-Api-Version': '2026-07' }]) {
      const res = await request(api.app)
        .get('/me')
        .set({ ...auth(api.keys.maple), ...headers });
      expect(res.status).toBe(200);
      expect(res.headers['x-service-api-version']).toBe('2026-07');
    }
  });
});

describe('inventory source', () => {
  it('a seller whose source is not platform gets 409 SELLER_SOURCE_EXCLUSIVE on every write route; reads work', async () => {
    for (const route of ROUTES.filter(([m]) => m === 'post')) {
      const res = await call(api.app, route, auth(api.keys.ledger));
      expect(res.status, route[1]).toBe(409);
      expect(res.body.error.code).toBe('SELLER_SOURCE_EXCLUSIVE');
    }
    // Even an oversized batch is refused by source first (nothing to split for this seller).
    const big = await request(api.app)
      .post('/listings')
      .set(auth(api.keys.ledger))
      .send(Array.from({ length: 1001 }, () => ({ skuId: 1 })));
    expect(big.status).toBe(409);
    expect((await request(api.app).get('/listings').set(auth(api.keys.ledger))).status).toBe(200);
    expect((await request(api.app).get('/me').set(auth(api.keys.ledger))).status).toBe(200);
    expect((await request(api.app).patch('/me').set(auth(api.keys.ledger)).send({ vacation: true })).body.data.vacation).toBe(true);
  });
});

describe('seller isolation', () => {
  it("another seller's key never sees or changes this seller's listings", async () => {
    await request(api.app)
      .post('/listings')
      .set(auth(api.keys.maple))
      .send([
        { skuId: 1001, productId: 101, price: 250, quantity: 4, externalRef: 'MAPLE-1' },
        { skuId: 1002, productId: 101, price: 150, quantity: 2 },
      ]);
    // Birch writes the same sku: its own listing, maple's untouched.
    const w = await request(api.app)
      .post('/listings/bulk')
      .set(auth(api.keys.birch))
      .send({
        items: [
          { op: 'upsert', skuId: 1001, productId: 101, price: 999, quantity: 1 },
          { op: 'delete', skuId: 1002 }, // maple has it, birch does not: applied, but nothing of maple's changes
        ],
      });
    expect(w.body.data.results.map((r: { status: string }) => r.status)).toEqual(['applied', 'applied']);
    const maple = await request(api.app).get('/listings').set(auth(api.keys.maple));
    expect(maple.body.data.items.map((i: { skuId: number; price: number; deletedAt: null }) => [i.skuId, i.price, i.deletedAt])).toEqual([
      [1001, 250, null],
      [1002, 150, null],
    ]);
    const birch = await request(api.app).get('/listings?include_deleted=true').set(auth(api.keys.birch));
    expect(birch.body.data.items.map((i: { skuId: number; price: number }) => [i.skuId, i.price])).toEqual([[1001, 999]]);

    // Birch's purge and vacation touch only birch.
    expect((await request(api.app).post('/listings/purge').set(auth(api.keys.birch))).body.data.purged).toBe(1);
    await request(api.app).patch('/me').set(auth(api.keys.birch)).send({ vacation: true });
    const me = await request(api.app).get('/me').set(auth(api.keys.maple));
    expect(me.body.data).toMatchObject({ sellerCode: 'maple', vacation: false, counts: { total: 2, matched: 2, unmatched: 0, browsable: 2 } });
    const birchMe = await request(api.app).get('/me').set(auth(api.keys.birch));
    expect(birchMe.body.data).toMatchObject({ sellerCode: 'birch', vacation: true, counts: { total: 0, matched: 0, unmatched: 0, browsable: 0 } });

    // Maple's export cursor is not a way into birch's data: it is bound to maple, so birch gets a 400.
    const page = await request(api.app).get('/listings?limit=1').set(auth(api.keys.maple));
    const viaBirch = await request(api.app).get(`/listings?cursor=${page.body.data.nextCursor}`).set(auth(api.keys.birch));
    expect(viaBirch.status).toBe(400);
    expect(JSON.stringify(viaBirch.body)).not.toMatch(/MAPLE-1/);
    const { rows } = await api.ctx.pool.query('SELECT seller_id, count(*)::int AS n FROM listings GROUP BY 1 ORDER BY 1');
    expect(rows).toEqual([
      { seller_id: MAPLE, n: 2 },
      { seller_id: BIRCH, n: 1 },
    ]);
  });
});

describe('rate limits', () => {
  it('seller routes: per key, 429 RATE_LIMITED with Retry-After once the budget is spent', async () => {
    const limited = sellerApp(api.ctx, { RATE_LIMIT_SELLER_PER_MIN: 2 });
    // A key's budget is kept in PostgreSQL for every API process (and app) on this database, so
    // this test spends a fresh key's, not one the other tests have used this minute.
    const spent = await issueApiKey(api.ctx.pool, 'maple', 'limited');
    const other = await issueApiKey(api.ctx.pool, 'maple', 'other');
    expect((await request(limited).get('/me').set(auth(spent.key))).status).toBe(200);
    expect((await request(limited).post('/listings/bulk').set(auth(spent.key)).send({ items: [] })).status).toBe(200);
    const res = await request(limited).get('/listings').set(auth(spent.key));
    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60); // the rest of the key's one-minute window
    // Another key of the same seller has its own budget; an app with the default limit still lets the key through.
    expect((await request(limited).get('/me').set(auth(other.key))).status).toBe(200);
    expect((await request(api.app).get('/me').set(auth(spent.key))).status).toBe(200);
    // Failed authentication is not charged to the key's budget (there is no key).
    expect((await request(limited).get('/me')).status).toBe(401);
  });

  it('public routes: per client address, shared by every module that mounts publicRateLimit', async () => {
    const probe =
      (path: string): RouteModule =>
      (a, deps) => {
        a.get(path, publicRateLimit(deps), (_req, res) => {
          res.json({ success: true, data: { path } });
        });
      };
    const limited = sellerApp(api.ctx, { RATE_LIMIT_PUBLIC_PER_MIN: 3 }, [probe('/probe-a'), probe('/probe-b')]);
    expect((await request(limited).get('/probe-a')).status).toBe(200);
    expect((await request(limited).get('/probe-b')).status).toBe(200);
    const third = await request(limited).get('/probe-a');
    expect(third.status).toBe(200);
    expect(third.headers['x-ratelimit-remaining']).toBe('0');
    const res = await request(limited).get('/probe-b');
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Seller routes do not draw from the public budget.
    expect((await request(limited).get('/me').set(auth(api.keys.maple))).status).toBe(200);
  });
});
