import { describe, expect, it } from 'vitest';
import net, { type AddressInfo } from 'node:net';
import pg from 'pg';
import { retryAfterSeconds, sharedLimiter, TokenBucketLimiter } from '../../../src/lib/rate-limiter.js';

describe('TokenBucketLimiter', () => {
  it('allows a burst of perMinute, then refuses with the time until the next token', () => {
    const l = new TokenBucketLimiter(3);
    const t0 = 1_000_000;
    expect(l.take('a', t0)).toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 });
    expect(l.take('a', t0).remaining).toBe(1);
    expect(l.take('a', t0).remaining).toBe(0);
    const refused = l.take('a', t0);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterMs).toBe(20_000); // 3 per minute = one token per 20 s
    expect(retryAfterSeconds(refused.retryAfterMs)).toBe(20);
  });

  it('refills continuously and never above capacity', () => {
    const l = new TokenBucketLimiter(60); // one token per second
    const t0 = 0;
    for (let i = 0; i < 60; i++) expect(l.take('a', t0).allowed).toBe(true);
    expect(l.take('a', t0 + 500).allowed).toBe(false);
    expect(l.take('a', t0 + 1000).allowed).toBe(true);
    expect(l.take('a', t0 + 1000).allowed).toBe(false);
    // A long idle period refills to capacity, not beyond.
    expect(l.take('a', t0 + 3_600_000).remaining).toBe(59);
  });

  it('keeps keys independent', () => {
    const l = new TokenBucketLimiter(1);
    expect(l.take('a', 0).allowed).toBe(true);
    expect(l.take('a', 0).allowed).toBe(false);
    expect(l.take('b', 0).allowed).toBe(true);
  });

  it('refused requests do not consume tokens', () => {
    const l = new TokenBucketLimiter(60);
    for (let i = 0; i < 60; i++) l.take('a', 0);
    for (let i = 0; i < 10; i++) expect(l.take('a', 100).allowed).toBe(false);
    expect(l.take('a', 1000).allowed).toBe(true);
  });

  it('tolerates a clock going backwards', () => {
    const l = new TokenBucketLimiter(1);
    expect(l.take('a', 10_000).allowed).toBe(true);
    expect(l.take('a', 0).allowed).toBe(false);
  });

  it('forgets idle keys first, then the least recent, when over maxKeys', () => {
    const l = new TokenBucketLimiter(60, 10);
    for (let i = 0; i < 10; i++) l.take(`k${i}`, 0);
    // Much later every bucket is full again: adding one more evicts the idle ones.
    l.take('new', 120_000);
    expect(l.size).toBeLessThanOrEqual(10);
    const busy = new TokenBucketLimiter(60, 10);
    for (let i = 0; i < 20; i++) busy.take(`k${i}`, 0);
    expect(busy.size).toBeLessThanOrEqual(10);
    // The most recent key kept its state (one token taken).
    expect(busy.take('k19', 0).remaining).toBe(58);
  });

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1001)).toBe(2);
    expect(retryAfterSeconds(0)).toBe(1);
  });
});

describe('sharedLimiter when its store fails or hangs', () => {
  it("a store that refuses connections: this process's own budget answers, each take counted as an error fallback", async () => {
    const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', max: 1 });
    const reasons: string[] = [];
    const l = sharedLimiter({ pool, timeoutMs: 5000, maxInFlight: 4, onFallback: (r) => reasons.push(r) }, 'unit-error', 2);
    const takes = [await l.take('k'), await l.take('k'), await l.take('k')];
    expect(takes.map((t) => t.allowed)).toEqual([true, true, false]);
    expect(reasons).toEqual(['error', 'error', 'error']);
    await pool.end();
  });

  it('a store that never answers: each take returns after timeoutMs, and takes beyond maxInFlight do not wait at all', async () => {
    // Accepts connections and says nothing: a client waits for the server's greeting forever.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const { port } = silent.address() as AddressInfo;
    const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/none`, max: 1 });
    const reasons: string[] = [];
    const l = sharedLimiter({ pool, timeoutMs: 50, maxInFlight: 2, onFallback: (r) => reasons.push(r) }, 'unit-hang', 100);
    const takes = await Promise.all([l.take('a'), l.take('b'), l.take('c'), l.take('d')]);
    expect(takes.every((t) => t.allowed)).toBe(true);
    expect(reasons.sort()).toEqual(['busy', 'busy', 'timeout', 'timeout']);
    for (const s of sockets) s.destroy();
    silent.close();
    await pool.end().catch(() => undefined);
  });
});
