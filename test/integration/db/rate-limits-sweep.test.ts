import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { testApp } from '../../support/app.js';
import { sweepRateLimits } from '../../../src/db/rate-limits.js';

// rate_limits stays bounded under rotating client addresses: each address's failed authentications
// write a row of their own, and the sweep deletes ended windows and keeps the table under its cap.

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
}, 120_000);

afterAll(async () => {
  await ctx?.close();
});

const rows = async (like = '%') =>
  (await ctx.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM rate_limits WHERE key LIKE $1', [like])).rows[0]!.n;

describe('the rate_limits sweep', () => {
  it('deletes rows whose window ended and keeps live ones', async () => {
    const now = Date.now();
    await ctx.pool.query('INSERT INTO rate_limits (key, points, expire) VALUES ($1, 3, $2), ($3, 5, $4)', [
      'seller:key:ended',
      now - 1000,
      'seller:key:live',
      now + 30_000,
    ]);
    const r = await sweepRateLimits(ctx.pool, 100_000, now);
    expect(r.expired).toBeGreaterThanOrEqual(1);
    expect(await rows('seller:key:ended')).toBe(0);
    expect(await rows('seller:key:live')).toBe(1);
  });

  it('bad keys from 300 rotating addresses: the cap keeps the table bounded, failed-authentication rows of the fewest points go first', async () => {
    const app = testApp(ctx, { TRUST_PROXY: 'loopback' });
    for (let i = 0; i < 300; i++) {
      const res = await request(app)
        .get('/me')
        .set('Authorization', `Bearer mp_maple_${'0'.repeat(40)}`)
        .set('X-Forwarded-For', `10.${Math.floor(i / 250)}.0.${i % 250}`);
      expect(res.status).toBe(401);
    }
    // One address failed three times: the rows holding more points are kept over single failures.
    for (let i = 0; i < 3; i++) await request(app).get('/me').set('X-Forwarded-For', '198.51.100.99');
    expect(await rows('auth-failures:%')).toBe(301);
    const r = await sweepRateLimits(ctx.pool, 100);
    expect(r.evicted).toBeGreaterThanOrEqual(201);
    expect(await rows()).toBeLessThanOrEqual(100);
    expect(await rows('auth-failures:198.51.100.99')).toBe(1);
    expect(await rows('seller:key:live')).toBe(1); // a seller key's budget is never evicted
  });
});
