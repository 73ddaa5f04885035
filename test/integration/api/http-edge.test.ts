import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { useSellerApi } from '../../support/seller-api.js';
import { appDeps, testApp } from '../../support/app.js';
import { createApp } from '../../../src/api/app.js';
import { routeModules } from '../../../src/api/routes/index.js';
import { createPool } from '../../../src/db/pool.js';
import { createLogger } from '../../../src/lib/logger.js';

// The HTTP edge of the whole app: body limits and a nesting guard before parsing, health and
// readiness through a PostgreSQL outage, per-address limits before authentication.

const api = useSellerApi({ app: (ctx, env) => testApp(ctx, env) });

const json = (path: string, text: string, method: 'post' | 'patch' = 'post', key?: string) => {
  const r = request(api.app)[method](path).set('Content-Type', 'application/json');
  return (key ? r.set('Authorization', `Bearer ${key}`) : r).send(text);
};

describe('per-route body limits and a nesting guard before parsing', () => {
  it('a lookup body larger than 500 pairs need is 413, whatever it holds', async () => {
    const res = await json('/lines/lookup', `{"lines":[]${' '.repeat(200_000)}}`);
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' } });
    // A full 500-pair lookup still fits.
    const lines = Array.from({ length: 500 }, (_, i) => ({ sellerId: 2_000_000_000 + i, skuId: 2_000_000_000 + i }));
    expect((await json('/lines/lookup', JSON.stringify({ lines }))).status).not.toBe(413);
  });

  it('PATCH /me takes a small body only', async () => {
    const res = await json('/me', `{"vacation":false${' '.repeat(20_000)}}`, 'patch', api.keys.maple);
    expect(res.status).toBe(413);
  });

  it('a 1000-item bulk write with long externalRefs still fits its limit', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({
      op: 'upsert',
      skuId: 100_000 + i,
      productId: 101,
      price: 1,
      quantity: 1,
      externalRef: 'é'.repeat(255),
      asOf: '2026-11-01T00:00:00.000000+01:00',
    }));
    const text = JSON.stringify({ items }).replace(/é/g, '\\u00e9'); // the escaped form is the largest
    const res = await json('/listings/bulk', text, 'post', api.keys.maple);
    expect(res.status).toBe(200);
  });

  it('deep nesting is refused before JSON.parse, on public and seller routes', async () => {
    const deep = (n: number) => `{"lines":${'['.repeat(n)}${']'.repeat(n)}}`;
    for (const [path, key] of [
      ['/lines/lookup', undefined],
      ['/listings', api.keys.maple],
    ] as const) {
      const res = await json(path, deep(5000), 'post', key);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/nest/i) });
    }
    // Brackets inside strings do not count.
    const inString = await json('/lines/lookup', `{"lines":[],"x":"${'['.repeat(5000)}"}`);
    expect(inString.body.error?.message ?? '').not.toMatch(/nest/i);
  });
});

describe('health, readiness and PostgreSQL outages', () => {
  it('public /readyz is a terse envelope; details and /metrics only behind HEALTH_DETAILS', async () => {
    const r = await request(api.app).get('/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, data: { status: expect.stringMatching(/^(ready|degraded)$/) } });
    expect(JSON.stringify(r.body)).not.toContain(new URL(api.ctx.env.ELASTICSEARCH_URL).host);
    expect((await request(api.app).get('/metrics')).status).toBe(404);
    const ops = testApp(api.ctx, { HEALTH_DETAILS: true });
    const detailed = await request(ops).get('/readyz');
    expect(detailed.body.data).toMatchObject({ postgres: 'up', cluster: { status: expect.any(String) } });
    expect((await request(ops).get('/metrics')).text).toMatch(/^degraded_mode [01]$/m);
  });

  it('with PostgreSQL down: /readyz is 503 in the error envelope, seller routes 503 SERVICE_UNAVAILABLE', async () => {
    const deadPg = createPool('postgres://postgres@127.0.0.1:1/nothing', 2);
    const deps = appDeps({ env: api.ctx.env, pool: deadPg, es: api.ctx.es, index: api.ctx.index, logger: createLogger('silent') });
    const down = createApp(deps, routeModules);
    try {
      const ready = await request(down).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
      expect(Number(ready.headers['retry-after'])).toBeGreaterThan(0);
      const auth = { Authorization: `Bearer ${api.keys.maple}` };
      for (const res of [
        await request(down).get('/me').set(auth),
        await request(down).get('/listings').set(auth),
        await request(down).post('/listings').set(auth).send({ skuId: 1001, productId: 101, price: 1, quantity: 1 }),
      ]) {
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    } finally {
      deps.services.degraded.stop();
      await deadPg.end();
    }
  });
});

describe('per-address limits before authentication, TRUST_PROXY', () => {
  it('bad keys from one address run out of attempts: 429 with Retry-After', async () => {
    const limited = testApp(api.ctx, { RATE_LIMIT_AUTH_FAILURES_PER_MIN: 5 });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await request(limited)
        .get('/me')
        .set('Authorization', `Bearer mp_maple_${'0'.repeat(40)}`)
        .set('X-Forwarded-For', '198.51.100.7');
      statuses.push(res.status);
      if (res.status === 429) {
        expect(res.body.error.code).toBe('RATE_LIMITED');
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    // Another address (behind the trusted proxy) is not affected.
    expect((await request(limited).get('/me').set('Authorization', `Bearer ${api.keys.maple}`).set('X-Forwarded-For', '198.51.100.8')).status).toBe(200);
  });

  it('every seller request is limited per address before authentication too', async () => {
    const limited = testApp(api.ctx, { RATE_LIMIT_SELLER_ADDRESS_PER_MIN: 3 });
    const send = () => request(limited).get('/me').set('X-Forwarded-For', '198.51.100.9');
    expect([(await send()).status, (await send()).status, (await send()).status]).toEqual([401, 401, 401]);
    expect((await send()).status).toBe(429);
  });

  it('TRUST_PROXY decides whether X-Forwarded-For names the client', async () => {
    const hit = async (trust: string) => {
      const a = testApp(api.ctx, { RATE_LIMIT_PUBLIC_PER_MIN: 2, TRUST_PROXY: trust });
      const out: number[] = [];
      for (const ip of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        out.push((await request(a).get('/search?limit=1').set('X-Forwarded-For', ip)).status);
      }
      return out;
    };
    expect(await hit('false')).toContain(429); // the proxy (this test) is the one client
    expect(await hit('loopback')).not.toContain(429);
    expect(await hit('127.0.0.1/8')).not.toContain(429);
  });
});
