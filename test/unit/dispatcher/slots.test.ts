import { describe, expect, it } from 'vitest';
import { createSlots } from '../../../dispatcher/slots.js';

const free = (slots: ReturnType<typeof createSlots>) => [slots.free(), slots.untriedFree(), slots.unhealthyFree()];
const healthy = (sellerId: number) => ({ sellerId, endpointState: 'healthy', share: 'healthy' }) as const;
const degraded = (sellerId: number) => ({ sellerId, endpointState: 'degraded', share: 'unhealthy' }) as const;
const probe = (sellerId: number) => ({ sellerId, endpointState: 'breaker_open', share: 'unhealthy' }) as const;
const untried = (sellerId: number, share: 'untried' | 'unhealthy' = 'untried') => ({ sellerId, endpointState: 'untried', share }) as const;

describe("a dispatcher's slots", () => {
  it('degraded and breaker-open endpoints take at most the unhealthy share; healthy ones keep the rest', () => {
    const slots = createSlots({ concurrency: 8, untriedConcurrency: 1, unhealthyConcurrency: 3 });
    expect(free(slots)).toEqual([8, 1, 3]);
    slots.take(degraded(1));
    slots.take(probe(2));
    slots.take(degraded(2));
    expect(free(slots)).toEqual([5, 1, 0]);
    for (let i = 0; i < 4; i++) slots.take(healthy(3));
    expect(free(slots)).toEqual([1, 1, 0]);
    slots.release(probe(2));
    expect(free(slots)).toEqual([2, 1, 1]);
    // Never more than what is free in all.
    slots.take(healthy(3));
    slots.take(healthy(4));
    expect(free(slots)).toEqual([0, 0, 0]);
    expect(Object.fromEntries(slots.perSeller)).toEqual({ 1: 1, 2: 1, 3: 5, 4: 1 });
    expect(slots.byState).toEqual({ healthy: 6, untried: 0, degraded: 2, breaker_open: 0 });
  });

  it('untried endpoints have a share of their own: a full unhealthy share does not hold them back, nor they it', () => {
    const slots = createSlots({ concurrency: 8, untriedConcurrency: 2, unhealthyConcurrency: 3 });
    for (let s = 1; s <= 3; s++) slots.take(degraded(s));
    expect(free(slots)).toEqual([5, 2, 0]);
    slots.take(untried(10));
    expect(free(slots)).toEqual([4, 1, 0]);
    slots.take(untried(11));
    expect(free(slots)).toEqual([3, 0, 0]);
    slots.release(degraded(1));
    expect(free(slots)).toEqual([4, 0, 1]);
    // An untried endpoint that drew on the unhealthy share's room counts there.
    slots.take(untried(12, 'unhealthy'));
    expect(free(slots)).toEqual([3, 0, 0]);
    slots.release(untried(10));
    expect(free(slots)).toEqual([4, 1, 0]);
    expect(slots.byState).toEqual({ healthy: 0, untried: 2, degraded: 2, breaker_open: 0 });
  });
});
