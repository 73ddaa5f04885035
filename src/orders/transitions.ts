import type { OrderStatus } from '../contract/orders.js';

// The order lifecycle as data (api-contract.md "States and transitions", DECISIONS.md "Moving
// orders"), in the manner of Vendure's default order process: each state lists the states it may
// move to. test/unit/orders/transitions.test.ts is the spec beside it: every (from, to) pair.
// (diagram: docs/orders.md).
//
// Moving into `cancelled` is POST /orders/{id}/cancel; the others are PATCH .../fulfillment.
// Repeating the current status is not a move (see the idempotency rules of the planners).
export const TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  created: ['accepted', 'shipped', 'cancelled'],
  accepted: ['shipped', 'cancelled'],
  shipped: ['delivered'],
  delivered: [],
  cancelled: [],
  // Refunds are not part of this API: nothing moves into or out of `refunded` here.
  refunded: [],
};

export function canMove(from: OrderStatus, to: OrderStatus): boolean {
  return TRANSITIONS[from].includes(to);
}
