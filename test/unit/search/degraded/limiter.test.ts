import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter, LimiterBusy } from '../../../../src/search/degraded/limiter.js';

describe('fallback limiter', () => {
  it('runs at most `max` at once, queues briefly, then refuses', async () => {
    const l = new ConcurrencyLimiter({ max: 2, maxWaitMs: 50, maxQueue: 1 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const running = [l.run(() => gate), l.run(() => gate)];
    expect(l.running).toBe(2);
    const queued = l.run(async () => 'queued');
    await expect(l.run(async () => 'x')).rejects.toBeInstanceOf(LimiterBusy); // queue full
    release();
    await Promise.all(running);
    await expect(queued).resolves.toBe('queued');
    expect(l.running).toBe(0);
  });

  it('a waiter gives up after maxWaitMs', async () => {
    const l = new ConcurrencyLimiter({ max: 1, maxWaitMs: 20, maxQueue: 10 });
    const hold = l.run(() => new Promise((r) => setTimeout(r, 100)));
    await expect(l.run(async () => 1)).rejects.toBeInstanceOf(LimiterBusy);
    await hold;
    await expect(l.run(async () => 2)).resolves.toBe(2);
  });

  /** Holds the one slot, queues a, b, c at the given clock times, then frees the slot `at` a later time. */
  async function whoGoesFirst(order: 'fifo' | 'adaptive', freeAt: number): Promise<string[]> {
    let clock = 0;
    const l = new ConcurrencyLimiter({ max: 1, maxWaitMs: 1000, maxQueue: 10, order, now: () => clock });
    const served: string[] = [];
    let free!: () => void;
    const held = l.run(() => new Promise<void>((r) => (free = r)));
    const queued = ['a', 'b', 'c'].map((name, i) => {
      clock = i * 10;
      return l.run(async () => void served.push(name));
    });
    clock = freeAt;
    await Promise.resolve(); // the holder's body starts a microtask after its slot
    free();
    await Promise.all([held, ...queued]);
    return served;
  }

  it('first come, first served while the oldest waiter has waited less than half of maxWaitMs', async () => {
    expect(await whoGoesFirst('adaptive', 400)).toEqual(['a', 'b', 'c']);
    expect(await whoGoesFirst('fifo', 900)).toEqual(['a', 'b', 'c']);
  });

  it('adaptive: once the oldest has waited half of maxWaitMs, a freed slot goes to the newest', async () => {
    // c is served first; then b and a, the queue still congested (the clock stands still).
    expect(await whoGoesFirst('adaptive', 500)).toEqual(['c', 'b', 'a']);
  });
});
