import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../../support/context.js';
import { seedSellerApi } from '../../../support/seller-seed.js';
import { createApp } from '../../../../src/api/app.js';
import { routeModules } from '../../../../src/api/routes/index.js';
import type { AppDeps } from '../../../../src/api/deps.js';
import { createLogger } from '../../../../src/lib/logger.js';
import { appDeps } from '../../../support/app.js';

// Inputs the index answers 200 to must not become a 503 in Degraded Mode
// (answered from PostgreSQL here: the breaker is held open and the last-good cache is empty).

let ctx: TestContext;
let deps: AppDeps;
let app: Express;

beforeAll(async () => {
  ctx = await createTestContext();
  await seedSellerApi(ctx);
  await ctx.pool.query(`INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status)
                        VALUES (7, 1001, 101, 250, 4, 'matched'), (7, 2001, 102, 300, 1, 'matched')`);
  deps = appDeps(
    { env: ctx.env, pool: ctx.pool, es: ctx.es, index: ctx.index, logger: createLogger('silent') },
    { degraded: { watch: { enabled: false }, breaker: { openMs: 1e12 } } },
  );
  const mode = deps.services.degraded;
  mode.observe({ kind: 'unreachable', detail: 'forced by the test' });
  app = createApp(deps, routeModules);
});
afterAll(async () => {
  deps?.services.degraded.stop();
  await ctx?.close();
});

describe('Degraded Mode answers what the index answers', () => {
  it('a NUL character in a filter matches nothing (200), as in the index', async () => {
    const control = await request(app).get('/search');
    expect(control.status).toBe(200);
    expect(control.body.degraded).toBe(true);
    expect(control.body.data.items.length).toBeGreaterThan(0);
    for (const q of [
      'condition=Near%00Mint',
      'set=Al%00pha',
      'sellerCode=ma%00ple',
      'category=x%00',
      'rarity=%00',
      'language=English&language=Eng%00lish',
      'collectorNumber=1%00',
      'keyword=bolt%00',
    ]) {
      const res = await request(app).get(`/search?${q}`);
      expect(res.status, q).toBe(200);
      expect(res.body.degraded, q).toBe(true);
      if (!q.startsWith('keyword') && !q.startsWith('language')) expect(res.body.data.items, q).toEqual([]);
    }
    // One good value among repeated ones still matches.
    const mixed = await request(app).get('/search?language=English&language=Eng%00lish');
    expect(mixed.body.data.items.length).toBe(control.body.data.items.length);
  });

  it('a lookup sellerId or skuId of 2^31 or more is an unknown line, not a 503', async () => {
    const res = await request(app)
      .post('/lines/lookup')
      .send({
        lines: [
          { sellerId: 2 ** 31, skuId: 1001 },
          { sellerId: 7, skuId: 2 ** 40 },
          { sellerId: 7, skuId: 1001 },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body.degraded).toBe(true);
    expect(res.body.data.lines).toHaveLength(3);
    expect(res.body.data.lines[2].available).toBe(4);
  });

  it('a 255-character CJK keyword is answered from PostgreSQL', async () => {
    const res = await request(app).get(`/search?keyword=${encodeURIComponent('漢'.repeat(255))}`);
    expect(res.status).toBe(200);
    expect(res.body.data.items).toEqual([]);
  });
});
