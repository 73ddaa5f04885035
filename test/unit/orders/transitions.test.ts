import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, type OrderStatus } from '../../../src/contract/orders.js';
import { canMove, TRANSITIONS } from '../../../src/orders/transitions.js';

// The spec beside src/orders/transitions.ts: every (from, to) pair of the lifecycle, as
// api-contract.md "States and transitions" states it.
const LEGAL: Record<OrderStatus, OrderStatus[]> = {
  created: ['accepted', 'shipped', 'cancelled'], // accepted is skippable
  accepted: ['shipped', 'cancelled'],
  shipped: ['delivered'], // no post-ship cancel, no backward move
  delivered: [],
  cancelled: [],
  refunded: [],
};

describe('order transition table', () => {
  for (const from of ORDER_STATUSES) {
    for (const to of ORDER_STATUSES) {
      const legal = LEGAL[from].includes(to);
      it(`${from} -> ${to}: ${legal ? 'allowed' : 'refused'}`, () => expect(canMove(from, to)).toBe(legal));
    }
  }
  it('nothing moves into refunded through this API (a pre-ship refund is illegal)', () => {
    expect(Object.values(TRANSITIONS).some((to) => to.includes('refunded'))).toBe(false);
  });
});
