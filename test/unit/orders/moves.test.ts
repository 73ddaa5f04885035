import { describe, expect, it } from 'vitest';
import { planCancel, planFulfillment } from '../../../src/orders/moves.js';
import { DomainError } from '../../../src/contract/errors.js';
import { apiErrorOf } from '../../../src/api/middleware/errors.js';
import type { OrderLineRow, OrderRow } from '../../../src/db/orders.js';

// The spec beside src/orders/moves.ts: what a fulfillment or cancel request does to an order,
// and which check refuses it first (DECISIONS.md "Fine points").

const order = (o: Partial<OrderRow> = {}): OrderRow => ({
  orderId: 'o',
  sellerId: 7,
  status: 'created',
  hasMoney: true,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  currency: 'CAD',
  customer: { name: 'A', email: 'a@x', shipping_address: { line1: 'l', line2: null, city: 'c', province: 'NS', postal_code: 'p', country: 'CA' } },
  buyerNotes: null,
  shippingMethod: 'Tracked',
  shippingCost: 1000,
  shippingTracked: true,
  taxRates: [{ label: 'HST', rate: 0.15 }],
  subtotal: 0,
  tax: 0,
  grandTotal: 0,
  taxLines: [],
  trackingCompany: null,
  trackingNumber: null,
  trackingUrl: null,
  changeXid: '1',
  changeSeq: 1,
  ...o,
});
const line = (skuId: number, quantity: number, unitPrice: number): OrderLineRow => ({
  position: skuId,
  skuId,
  productId: 1,
  quantity,
  orderedQuantity: quantity,
  unitPrice,
  name: '',
  setName: '',
  condition: '',
  language: null,
  finish: null,
  externalRef: null,
  disclosures: null,
  fulfillmentObligation: null,
});
const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    // The domain error as the API answers it (src/api/middleware/errors.ts maps every kind).
    expect(e).toBeInstanceOf(DomainError);
    const api = apiErrorOf(e as DomainError);
    return `${api.status} ${api.code}`;
  }
  return 'ok';
};

describe('fulfillment planner: INVALID_TRANSITION before dispatch evidence', () => {
  it.each([
    ['shipped', { status: 'accepted', trackingCompany: 'U', trackingNumber: '1' }, true, '422 INVALID_TRANSITION'],
    ['created', { status: 'accepted', trackingCompany: 'U', trackingNumber: '1' }, true, '422 INVALID_REQUEST'],
    ['created', { status: 'shipped' }, true, '422 INVALID_REQUEST'],
    ['created', { status: 'shipped', trackingCompany: 'U', trackingNumber: '1' }, false, '422 INVALID_REQUEST'],
    ['created', { status: 'shipped' }, null, 'ok'],
    ['created', { status: 'shipped', trackingCompany: 'U', trackingNumber: '1' }, null, 'ok'],
    ['created', { status: 'delivered' }, true, '422 INVALID_TRANSITION'],
    ['delivered', { status: 'delivered' }, true, 'ok'],
    ['delivered', { status: 'delivered', trackingCompany: 'U', trackingNumber: '1' }, true, '422 INVALID_REQUEST'],
  ] as const)('%s + %j (tracked %s): %s', (status, body, tracked, expected) => {
    expect(code(() => planFulfillment(order({ status, shippingTracked: tracked }), body))).toBe(expected);
  });
});

describe('cancel planner', () => {
  const lines = [line(1, 4, 250), line(2, 2, 999)];
  it('recomputes totals with the same rates on a partial cancel', () => {
    const plan = planCancel(order(), lines, { lines: [{ skuId: 1, quantity: 1 }] });
    // 750 + 1998 = 2748; base 3748; 0.15 x 3748 = 562.2 -> 562
    expect(plan).toEqual({
      kind: 'lines',
      remaining: [{ skuId: 1, quantity: 3 }],
      totals: { subtotal: 2748, tax: 562, grandTotal: 4310, taxLines: [{ label: 'HST', rate: 0.15, amount: 562 }] },
      adjustments: [{ skuId: 1, productId: 1, quantity: 1, externalRef: null }],
    });
  });
  it('a cancel leaving nothing is the whole order', () => {
    expect(planCancel(order(), lines, { lines: [{ skuId: 1 }, { skuId: 2, quantity: 2 }] }).kind).toBe('whole');
  });
  it('whole cancel of a cancelled order is unchanged; a line cancel of it, or any cancel once shipped, is 422', () => {
    expect(planCancel(order({ status: 'cancelled' }), lines, {})).toEqual({ kind: 'unchanged' });
    expect(code(() => planCancel(order({ status: 'cancelled' }), lines, { lines: [{ skuId: 1 }] }))).toBe('422 INVALID_TRANSITION');
    expect(code(() => planCancel(order({ status: 'shipped' }), lines, {}))).toBe('422 INVALID_TRANSITION');
  });
});
