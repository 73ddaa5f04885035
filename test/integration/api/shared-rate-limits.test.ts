import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { createTestContext, type TestContext } from '../../support/context.js';
import { seedSellerApi } from '../../support/seller-seed.js';
import { spawnApi } from '../../support/api-process.js';
import { killHard } from '../../support/indexer-process.js';
import { pickPort } from '../../support/es-node.js';

// Two API processes against one PostgreSQL, served round-robin as a load balancer would: one
// seller key's per-minute budget and one address's failed-authentication budget are held
// together, so the request past the limit is refused whichever process answers it.

let ctx: TestContext;
let keys: { maple: string; birch: string };
const apis: ChildProcess[] = [];
let urls: string[];

beforeAll(async () => {
  ctx = await createTestContext();
  keys = await seedSellerApi(ctx);
  const taken = new Set<number>();
  const ports = [await pickPort(3700, taken), await pickPort(3700, taken)];
  const env = {
    DATABASE_URL: ctx.databaseUrl,
    ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL,
    INDEX_PREFIX: ctx.env.INDEX_PREFIX,
    RATE_LIMIT_SELLER_PER_MIN: '600',
    RATE_LIMIT_AUTH_FAILURES_PER_MIN: '60',
  };
  apis.push(...(await Promise.all(ports.map((p) => spawnApi(p, env)))));
  urls = ports.map((p) => `http://127.0.0.1:${p}`);
}, 180_000);

afterAll(async () => {
  await Promise.all(apis.map(killHard));
  await ctx?.close();
});

async function get(i: number, path: string, headers: Record<string, string>) {
  const res = await fetch(`${urls[i % urls.length]}${path}`, { headers });
  const body = (await res.json()) as { error?: { code: string } };
  return { status: res.status, body, retryAfter: res.headers.get('retry-after'), remaining: res.headers.get('x-ratelimit-remaining') };
}

describe('rate limits shared by two API processes', () => {
  it("one key's 600 requests a minute, round-robin over both: the 601st is 429 on either process", async () => {
    const auth = { Authorization: `Bearer ${keys.maple}`, 'X-Forwarded-For': '198.51.100.20' };
    const statuses: number[] = [];
    const t0 = Date.now();
    // Ten at a time, alternating processes, as a client behind a load balancer sends them.
    for (let i = 0; i < 600; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, (_, k) => get(i + k, '/me', auth)));
      statuses.push(...batch.map((r) => r.status));
    }
    const over = await Promise.all([get(0, '/me', auth), get(1, '/me', auth)]);
    console.log(
      `[shared limits] 600 requests over two processes in ${Date.now() - t0} ms: ${statuses.filter((s) => s === 200).length} x 200; then ${over.map((o) => o.status).join(' and ')}`,
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    for (const o of over) {
      expect(o.status).toBe(429);
      expect(o.body.error?.code).toBe('RATE_LIMITED');
      expect(Number(o.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(o.retryAfter)).toBeLessThanOrEqual(60);
    }
    // Another key has its own budget, on both processes.
    const other = { Authorization: `Bearer ${keys.birch}`, 'X-Forwarded-For': '198.51.100.20' };
    expect([(await get(0, '/me', other)).status, (await get(1, '/me', other)).status]).toEqual([200, 200]);
  });

  it("one address's 60 failed authentications, round-robin over both: the 61st is 429 on either process", async () => {
    const bad = { Authorization: `Bearer mp_maple_${'0'.repeat(40)}`, 'X-Forwarded-For': '198.51.100.21' };
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await get(i, '/me', bad)).status);
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
    // Whichever process takes the next one refuses it, and the other as well after it.
    const next = [await get(60, '/me', bad), await get(61, '/me', bad)];
    expect(next.map((n) => n.status)).toEqual([429, 429]);
    expect(next[0]!.body.error?.code).toBe('RATE_LIMITED');
    // Once a process has seen the budget spent, even a good key from that address waits (no lookup).
    const good = { Authorization: `Bearer ${keys.birch}`, 'X-Forwarded-For': '198.51.100.21' };
    expect([(await get(0, '/me', good)).status, (await get(1, '/me', good)).status]).toEqual([429, 429]);
    // Another address is not affected.
    expect((await get(0, '/me', { ...good, 'X-Forwarded-For': '198.51.100.22' })).status).toBe(200);
  });
});
