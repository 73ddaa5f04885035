import type { Pool } from '../src/db/pool.js';
import { claimDue, type ClaimedEvent } from '../src/db/webhook-claim.js';
import type { DispatcherConfig } from './config.js';
import type { Slots } from './slots.js';

/**
 * A claim's lease outlives its attempt (bounded by the timeout) by this much, which covers
 * recording the outcome; after it another dispatcher may take the event (at-least-once).
 */
export const LEASE_MARGIN_MS = 5000;
const FULL_WALK_EVERY_MS = 1000;

export interface Claimer {
  /** Claims what the free slots allow (docs/webhooks.md "Fairness and the breaker"). */
  claim(slots: Slots): Promise<ClaimedEvent[]>;
  /** The next claim walks every seller's due events from the start (a NOTIFY came). */
  walkEverything(): void;
}

/**
 * Claims for one dispatcher. Per seller, it remembers where its last claim ended, and the next
 * claim starts that seller's walk there: delivered events leave dead entries at the front of the
 * due index until vacuum, and every claim would walk them again. Behind that point may lie events
 * committed late (inserted earlier, committed after a later one was claimed) and events whose
 * lease expired: a NOTIFY (sent at commit) and the passing of FULL_WALK_EVERY_MS make the next
 * claim walk everything.
 */
export function createClaimer(pool: Pool, config: DispatcherConfig): Claimer {
  const leaseMs = config.timeoutMs + LEASE_MARGIN_MS;
  const walkFrom = new Map<number, Date>();
  let fullWalkDue = true;
  let lastFullWalk = 0;
  return {
    walkEverything() {
      fullWalkDue = true;
    },
    async claim(slots) {
      const full = fullWalkDue || Date.now() - lastFullWalk >= FULL_WALK_EVERY_MS;
      if (full) {
        fullWalkDue = false;
        lastFullWalk = Date.now();
      }
      const claimed = await claimDue(pool, {
        limit: slots.free(),
        untriedLimit: slots.untriedFree(),
        unhealthyLimit: slots.unhealthyFree(),
        perEndpoint: config.perEndpoint,
        busy: slots.perSeller,
        leaseMs,
        breakerFailures: config.breakerFailures,
        breakerCooldownMs: config.breakerCooldownMs,
        ...(full ? {} : { from: walkFrom }),
      });
      for (const e of claimed) {
        const at = walkFrom.get(e.sellerId);
        if (!at || e.nextAttemptAt > at) walkFrom.set(e.sellerId, e.nextAttemptAt);
      }
      return claimed;
    },
  };
}
