import { describe, expect, it } from 'vitest';
import { createSlots } from '../../../dispatcher/slots.js';

const free = (slots: ReturnType<typeof createSlots>) => [slots.free(), slots.untriedFree(), slots.unhealthyFree()];

describe("a dispatcher's slots", () => {
  it('degraded and breaker-open endpoints take at most their share; healthy ones keep the rest', () => {
    const slots = createSlots({ concurrency: 8, untriedConcurrency: 1, unhealthyConcurrency: 3 });
    expect(free(slots)).toEqual([8, 1, 3]);
    slots.take({ sellerId: 1, endpointState: 'degraded' });
    slots.take({ sellerId: 2, endpointState: 'breaker_open' });
    slots.take({ sellerId: 2, endpointState: 'degraded' });
    expect(free(slots)).toEqual([5, 1, 0]);
    for (let i = 0; i < 4; i++) slots.take({ sellerId: 3, endpointState: 'healthy' });
    expect(free(slots)).toEqual([1, 1, 0]);
    slots.release({ sellerId: 2, endpointState: 'breaker_open' });
    expect(free(slots)).toEqual([2, 1, 1]);
    // Never more than what is free in all.
    slots.take({ sellerId: 3, endpointState: 'healthy' });
    slots.take({ sellerId: 4, endpointState: 'healthy' });
    expect(free(slots)).toEqual([0, 0, 0]);
    expect(Object.fromEntries(slots.perSeller)).toEqual({ 1: 1, 2: 1, 3: 5, 4: 1 });
    expect(slots.byState).toEqual({ healthy: 6, untried: 0, degraded: 2, breaker_open: 0 });
  });

  it('untried endpoints have a share of their own: a full unhealthy share does not hold them back, nor they it', () => {
    const slots = createSlots({ concurrency: 8, untriedConcurrency: 2, unhealthyConcurrency: 3 });
    for (let s = 1; s <= 3; s++) slots.take({ sellerId: s, endpointState: 'degraded' });
    expect(free(slots)).toEqual([5, 2, 0]);
    slots.take({ sellerId: 10, endpointState: 'untried' });
    expect(free(slots)).toEqual([4, 1, 0]);
    slots.take({ sellerId: 11, endpointState: 'untried' });
    expect(free(slots)).toEqual([3, 0, 0]);
    slots.release({ sellerId: 1, endpointState: 'degraded' });
    expect(free(slots)).toEqual([4, 0, 1]);
    expect(slots.byState).toEqual({ healthy: 0, untried: 2, degraded: 2, breaker_open: 0 });
  });
});
