import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { createTestContext, type TestContext } from '../../support/context.js';
import { seedSellerApi } from '../../support/seller-seed.js';
import { spawnApi } from '../../support/api-process.js';
import { killHard } from '../../support/indexer-process.js';
import { pickPort } from '../../support/es-node.js';

// Two API processes against one PostgreSQL, served round-robin as a load balancer would: one
// seller key's per-minute budget and one address's failed-authentication budget are held
// together, so the request past the limit is refused whichever process answers it; the failure
// budget refuses failures only; and a locked rate_limits table holds up neither seller requests nor
// readiness (each process's own budget answers meanwhile, and says so in its metrics).

let ctx: TestContext;
let keys: { maple: string; birch: string; ledger: string };
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
    HEALTH_DETAILS: 'true',
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

  it("one address's 60 failed authentications, round-robin over both: the 61st is 429 on either process, valid keys still 200", async () => {
    const bad = { Authorization: `Bearer mp_maple_${'0'.repeat(40)}`, 'X-Forwarded-For': '198.51.100.21' };
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) statuses.push((await get(i, '/me', bad)).status);
    expect(statuses.filter((s) => s !== 401)).toEqual([]);
    // Whichever process takes the next one refuses it, and the other as well after it.
    const next = [await get(60, '/me', bad), await get(61, '/me', bad)];
    expect(next.map((n) => n.status)).toEqual([429, 429]);
    expect(next[0]!.body.error?.code).toBe('RATE_LIMITED');
    // Two other sellers behind the same address (a platform) are served on both processes: the
    // failure budget refuses failures only (maple spent its own per-key budget above).
    for (const key of [keys.birch, keys.ledger]) {
      const good = { Authorization: `Bearer ${key}`, 'X-Forwarded-For': '198.51.100.21' };
      const answers = [await get(0, '/me', good), await get(1, '/me', good)];
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
    }
    // ...while the bad key, and a malformed or missing one, stay refused from that address.
    expect((await get(0, '/me', bad)).status).toBe(429);
    expect((await get(1, '/me', { ...bad, Authorization: 'Bearer nonsense' })).status).toBe(429);
    expect((await get(0, '/me', { 'X-Forwarded-For': '198.51.100.21' })).status).toBe(429);
    // Another address is not affected.
    expect((await get(0, '/me', { ...bad, 'X-Forwarded-For': '198.51.100.22' })).status).toBe(401);
  });

  it('rate_limits locked for 10 s: seller requests answer at once from each process, /readyz stays 200, the fallback is counted', async () => {
    const fallbacksBefore = await Promise.all([0, 1].map(fallbacks));
    const locker = new pg.Client({ connectionString: ctx.databaseUrl });
    await locker.connect();
    const slowest = { me: 0, bad: 0, readyz: 0 };
    const statuses = { me: new Set<number>(), bad: new Set<number>(), readyz: new Set<number>() };
    let rounds = 0;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE rate_limits IN ACCESS EXCLUSIVE MODE');
      const lockedAt = Date.now();
      // Sequential rounds over both processes for as long as the lock is held: a key's request,
      // a bad key's (a failed authentication also takes from the shared store) and readiness.
      const timed = async (what: keyof typeof slowest, i: number, path: string, headers: Record<string, string>) => {
        const t0 = performance.now();
        const r = await get(i, path, headers);
        slowest[what] = Math.max(slowest[what], performance.now() - t0);
        statuses[what].add(r.status);
      };
      for (let i = 0; Date.now() - lockedAt < 10_000; i++, rounds++) {
        await Promise.all([
          timed('me', i, '/me', { Authorization: `Bearer ${keys.birch}`, 'X-Forwarded-For': '198.51.100.30' }),
          timed('bad', i + 1, '/me', { Authorization: `Bearer mp_birch_${'0'.repeat(40)}`, 'X-Forwarded-For': '198.51.100.31' }),
          timed('readyz', i, '/readyz', {}),
        ]);
      }
      // The lock is still held here: nothing above waited for it.
      expect(
        (
          await locker.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_locks WHERE relation = 'rate_limits'::regclass AND granted AND mode = 'AccessExclusiveLock'",
          )
        ).rows[0]!.n,
      ).toBe(1);
    } finally {
      await locker.query('COMMIT').catch(() => undefined);
      await locker.end();
    }
    console.log(
      `[locked rate_limits] ${rounds} rounds in 10 s; slowest /me ${slowest.me.toFixed(0)} ms, bad key ${slowest.bad.toFixed(0)} ms, /readyz ${slowest.readyz.toFixed(0)} ms`,
    );
    expect([...statuses.me]).toEqual([200]);
    expect([...statuses.bad]).toEqual([401]);
    expect([...statuses.readyz]).toEqual([200]);
    // Each answer within the store's timeout plus a loaded machine's slack, never the lock's 10 s.
    expect(slowest.me).toBeLessThan(1500);
    expect(slowest.bad).toBeLessThan(1500);
    expect(slowest.readyz).toBeLessThan(1500);
    const fallbacksAfter = await Promise.all([0, 1].map(fallbacks));
    expect(fallbacksAfter[0]! + fallbacksAfter[1]!).toBeGreaterThan(fallbacksBefore[0]! + fallbacksBefore[1]!);
    // Once the lock is gone the shared store answers again: a request spends from it.
    const before = await rowPoints('seller:key:');
    expect((await get(0, '/me', { Authorization: `Bearer ${keys.birch}` })).status).toBe(200);
    expect(await rowPoints('seller:key:')).toBeGreaterThan(before);
  }, 60_000);
});

/** The process's count of limiter takes its own budget answered (every limiter and reason). */
async function fallbacks(i: number): Promise<number> {
  const text = await (await fetch(`${urls[i]}/metrics`)).text();
  let sum = 0;
  for (const m of text.matchAll(/^rate_limit_store_fallbacks_total\{[^}]*\} (\d+)$/gm)) sum += Number(m[1]);
  return sum;
}

/** Points taken in the shared store by keys starting with `prefix`. */
async function rowPoints(prefix: string): Promise<number> {
  const c = new pg.Client({ connectionString: ctx.databaseUrl });
  await c.connect();
  try {
    const r = await c.query<{ n: number }>('SELECT coalesce(sum(points), 0)::int AS n FROM rate_limits WHERE key LIKE $1 AND expire > $2', [
      `${prefix}%`,
      Date.now(),
    ]);
    return r.rows[0]!.n;
  } finally {
    await c.end();
  }
}
