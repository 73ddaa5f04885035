import type { CancelBody, FulfillmentBody, OrderStatus } from '../contract/orders.js';
import type { OrderLineRow, OrderRow, TaxLine } from '../db/orders.js';
import { DomainError } from '../contract/errors.js';
import { canMove } from './transitions.js';
import { computeTotals } from './totals.js';

// What a fulfillment or cancel request does to an order, decided without I/O from the locked
// order and the validated body. Checks run in the order of DECISIONS.md "Fine points": the body
// alone (zod, before this), then 404 (the caller), then 422 INVALID_TRANSITION, then dispatch
// evidence (422 INVALID_REQUEST).

export interface Tracking {
  trackingCompany: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
}

export type FulfillmentPlan = { kind: 'unchanged' } | ({ kind: 'move'; status: OrderStatus } & Tracking);

const invalidTransition = (from: OrderStatus, what: string) =>
  new DomainError('invalid-transition', `Order is ${from}: ${what} violates the order lifecycle`);

const dispatchEvidence = (message: string, field: string) => new DomainError('dispatch-evidence-conflict', message, [{ field, message }]);

export function planFulfillment(order: OrderRow, body: FulfillmentBody): FulfillmentPlan {
  const from = order.status;
  const to = body.status;
  const tracking = body.trackingCompany !== undefined && body.trackingNumber !== undefined;
  const requested: Tracking = {
    trackingCompany: body.trackingCompany ?? null,
    trackingNumber: body.trackingNumber ?? null,
    trackingUrl: body.trackingUrl ?? null,
  };

  if (from === to) {
    // A Platform retrying: the same status with the same tracking changes nothing.
    const same =
      to === 'shipped'
        ? requested.trackingCompany === order.trackingCompany &&
          requested.trackingNumber === order.trackingNumber &&
          requested.trackingUrl === order.trackingUrl
        : !tracking;
    if (same) return { kind: 'unchanged' };
    if (to === 'shipped') throw invalidTransition(from, 'replacing the tracking of a shipped order');
  } else if (!canMove(from, to)) {
    throw invalidTransition(from, `moving to ${to}`);
  }

  if (to !== 'shipped') {
    if (tracking) throw dispatchEvidence(`Tracking is only supplied with status shipped, not ${to}`, 'trackingCompany');
    // accepted keeps no tracking yet; delivered keeps what shipping recorded.
    return { kind: 'move', status: to, trackingCompany: order.trackingCompany, trackingNumber: order.trackingNumber, trackingUrl: order.trackingUrl };
  }
  // Operator orders have no frozen option (shippingTracked null): tracking or none.
  if (order.shippingTracked === true && !tracking) {
    throw dispatchEvidence(
      `The order's shipping option "${order.shippingMethod}" is tracked: trackingCompany and trackingNumber are required`,
      'trackingNumber',
    );
  }
  if (order.shippingTracked === false && tracking) {
    throw dispatchEvidence(
      `The order's shipping option "${order.shippingMethod}" is untracked: it takes no tracking (Seller Dispatch declaration)`,
      'trackingCompany',
    );
  }
  return { kind: 'move', status: 'shipped', ...requested };
}

/** One cancelled quantity of a line, for the inventory.adjusted data. */
export interface Adjustment {
  skuId: number;
  productId: number;
  quantity: number;
  externalRef: string | null;
}

export type CancelPlan =
  | { kind: 'unchanged' }
  /** The whole order: status cancelled, lines and totals as they were, every hold released. */
  | { kind: 'whole'; adjustments: Adjustment[] }
  /** Some lines: their new quantities, their holds shrunk, totals recomputed; status kept. */
  | {
      kind: 'lines';
      remaining: { skuId: number; quantity: number }[];
      totals: { subtotal: number | null; tax: number | null; grandTotal: number | null; taxLines: TaxLine[] };
      adjustments: Adjustment[];
    };

const adjustment = (l: OrderLineRow, quantity: number): Adjustment => ({ skuId: l.skuId, productId: l.productId, quantity, externalRef: l.externalRef });

export function planCancel(order: OrderRow, lines: readonly OrderLineRow[], body: CancelBody): CancelPlan {
  const live = lines.filter((l) => l.quantity > 0);
  if (order.status === 'cancelled') {
    if (body.lines === undefined) return { kind: 'unchanged' };
    throw invalidTransition('cancelled', 'cancelling lines');
  }
  if (!canMove(order.status, 'cancelled')) throw invalidTransition(order.status, 'cancelling');
  if (body.lines === undefined) return { kind: 'whole', adjustments: live.map((l) => adjustment(l, l.quantity)) };

  const bySku = new Map(live.map((l) => [l.skuId, l]));
  const cancelled = new Map<number, number>();
  body.lines.forEach((c, i) => {
    const l = bySku.get(c.skuId);
    if (!l) {
      const message = `sku ${c.skuId} is not a remaining line of this order`;
      throw new DomainError('invalid-request', message, [{ field: `lines.${i}.skuId`, message }]);
    }
    const q = c.quantity ?? l.quantity;
    if (q > l.quantity) {
      const message = `${q} units of sku ${c.skuId} cancelled, ${l.quantity} remain`;
      throw new DomainError('invalid-request', message, [{ field: `lines.${i}.quantity`, message }]);
    }
    cancelled.set(c.skuId, q);
  });

  const after = live.map((l) => ({ line: l, quantity: l.quantity - (cancelled.get(l.skuId) ?? 0) }));
  // A cancel that leaves nothing is the whole order's cancel (lines and totals as before it).
  if (after.every((a) => a.quantity === 0)) return { kind: 'whole', adjustments: live.map((l) => adjustment(l, l.quantity)) };

  const remaining = after.filter((a) => cancelled.has(a.line.skuId)).map((a) => ({ skuId: a.line.skuId, quantity: a.quantity }));
  let totals: Extract<CancelPlan, { kind: 'lines' }>['totals'] = { subtotal: null, tax: null, grandTotal: null, taxLines: [] };
  if (order.hasMoney && order.shippingCost !== null) {
    const t = computeTotals(
      after.map((a) => ({ quantity: a.quantity, unitPrice: a.line.unitPrice })),
      order.shippingCost,
      order.taxRates,
    );
    totals = { subtotal: t.subtotal, tax: t.tax, grandTotal: t.grandTotal, taxLines: t.taxLines };
  }
  const adjustments = live.filter((l) => cancelled.has(l.skuId)).map((l) => adjustment(l, cancelled.get(l.skuId)!));
  return { kind: 'lines', remaining, totals, adjustments };
}
