import type { SlotShare } from '../src/db/webhook-claim.js';
import { ENDPOINT_STATES, type EndpointState } from '../src/db/webhook-endpoints.js';

// This dispatcher's attempts in flight, counted the ways its limits need: in all
// (WEBHOOK_CONCURRENCY), per endpoint (WEBHOOK_CONCURRENCY_PER_ENDPOINT), and per share of the
// slots the claim gave them: untried (WEBHOOK_CONCURRENCY_UNTRIED) and unhealthy
// (WEBHOOK_CONCURRENCY_UNHEALTHY: degraded and breaker-open endpoints, and untried ones beyond their
// own share). Across dispatchers, the breaker's shared state (one probe at a time) does the rest.

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
  /** Of those, how many the untried share still has. */
  untriedFree(): number;
  /** Of those, how many the unhealthy share still has. */
  unhealthyFree(): number;
  take(a: HeldSlot): void;
  release(a: HeldSlot): void;
}

/** An attempt's hold on a slot: its endpoint, that endpoint's state and the share it drew from when claimed. */
interface HeldSlot {
  sellerId: number;
  endpointState: EndpointState;
  share: SlotShare;
}

export function createSlots(limits: SlotLimits): Slots {
  const perSeller = new Map<number, number>();
  const byState = Object.fromEntries(ENDPOINT_STATES.map((s) => [s, 0])) as Record<EndpointState, number>;
  const byShare: Record<SlotShare, number> = { healthy: 0, untried: 0, unhealthy: 0 };
  let total = 0;
  const free = () => limits.concurrency - total;
  return {
    perSeller,
    byState,
    inFlight: () => total,
    free,
    untriedFree: () => Math.max(0, Math.min(limits.untriedConcurrency - byShare.untried, free())),
    unhealthyFree: () => Math.max(0, Math.min(limits.unhealthyConcurrency - byShare.unhealthy, free())),
    take(a) {
      perSeller.set(a.sellerId, (perSeller.get(a.sellerId) ?? 0) + 1);
      byState[a.endpointState] += 1;
      byShare[a.share] += 1;
      total += 1;
    },
    release(a) {
      const n = perSeller.get(a.sellerId)! - 1;
      if (n === 0) perSeller.delete(a.sellerId);
      else perSeller.set(a.sellerId, n);
      byState[a.endpointState] -= 1;
      byShare[a.share] -= 1;
      total -= 1;
    },
  };
}
