import { ENDPOINT_STATES, type EndpointState } from '../src/db/webhook-endpoints.js';

// This dispatcher's attempts in flight, counted the ways its limits need: in all
// (WEBHOOK_CONCURRENCY), per endpoint (WEBHOOK_CONCURRENCY_PER_ENDPOINT), to endpoints untried when
// claimed (WEBHOOK_CONCURRENCY_UNTRIED) and to endpoints degraded or breaker-open when claimed
// (WEBHOOK_CONCURRENCY_UNHEALTHY). Across dispatchers, the breaker's shared state (one probe at a
// time) does the rest.

export interface SlotLimits {
  concurrency: number;
  untriedConcurrency: number;
  unhealthyConcurrency: number;
}

export interface Slots {
  /** Attempts in flight per seller (the claim gives each endpoint only its free slots). */
  readonly perSeller: ReadonlyMap<number, number>;
  /** Attempts in flight per endpoint state at claim (a metric). */
  readonly byState: Readonly<Record<EndpointState, number>>;
  inFlight(): number;
  /** Slots free in all. */
  free(): number;
  /** Of those, how many untried endpoints may still take (one each). */
  untriedFree(): number;
  /** Of those, how many degraded and breaker-open endpoints may still take. */
  unhealthyFree(): number;
  take(a: { sellerId: number; endpointState: EndpointState }): void;
  release(a: { sellerId: number; endpointState: EndpointState }): void;
}

export function createSlots(limits: SlotLimits): Slots {
  const perSeller = new Map<number, number>();
  const byState = Object.fromEntries(ENDPOINT_STATES.map((s) => [s, 0])) as Record<EndpointState, number>;
  let total = 0;
  const free = () => limits.concurrency - total;
  return {
    perSeller,
    byState,
    inFlight: () => total,
    free,
    untriedFree: () => Math.max(0, Math.min(limits.untriedConcurrency - byState.untried, free())),
    unhealthyFree: () => Math.max(0, Math.min(limits.unhealthyConcurrency - byState.degraded - byState.breaker_open, free())),
    take(a) {
      perSeller.set(a.sellerId, (perSeller.get(a.sellerId) ?? 0) + 1);
      byState[a.endpointState] += 1;
      total += 1;
    },
    release(a) {
      const n = perSeller.get(a.sellerId)! - 1;
      if (n === 0) perSeller.delete(a.sellerId);
      else perSeller.set(a.sellerId, n);
      byState[a.endpointState] -= 1;
      total -= 1;
    },
  };
}
