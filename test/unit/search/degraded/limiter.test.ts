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
});
