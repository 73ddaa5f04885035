import { describe, expect, it } from 'vitest';
import { createSlots } from '../../../dispatcher/slots.js';

describe("a dispatcher's slots", () => {
  it('endpoints that are not healthy take at most their share; healthy ones keep the rest', () => {
    const slots = createSlots({ concurrency: 8, unhealthyConcurrency: 3 });
    expect([slots.free(), slots.unhealthyFree()]).toEqual([8, 3]);
    slots.take({ sellerId: 1, endpointState: 'untried' });
    slots.take({ sellerId: 2, endpointState: 'breaker_open' });
    slots.take({ sellerId: 2, endpointState: 'degraded' });
    expect([slots.free(), slots.unhealthyFree()]).toEqual([5, 0]);
    for (let i = 0; i < 4; i++) slots.take({ sellerId: 3, endpointState: 'healthy' });
    expect([slots.free(), slots.unhealthyFree()]).toEqual([1, 0]);
    slots.release({ sellerId: 2, endpointState: 'breaker_open' });
    expect([slots.free(), slots.unhealthyFree()]).toEqual([2, 1]);
    // Never more than what is free in all.
    slots.take({ sellerId: 3, endpointState: 'healthy' });
    slots.take({ sellerId: 4, endpointState: 'healthy' });
    expect([slots.free(), slots.unhealthyFree()]).toEqual([0, 0]);
    expect(Object.fromEntries(slots.perSeller)).toEqual({ 1: 1, 2: 1, 3: 5, 4: 1 });
    expect(slots.byState).toEqual({ healthy: 6, untried: 1, degraded: 1, breaker_open: 0 });
  });
});
