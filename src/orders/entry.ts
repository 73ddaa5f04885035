import type { Customer } from '../contract/orders.js';
import { lineDisclosures } from '../contract/orders.js';
import { FULFILLMENT_OBLIGATION, disclosuresFor } from '../contract/policy.js';
import type { EntryFacts, EntryOffer, EntrySeller, NewOrder, OrderLineRow, OrderRow, TaxRate } from '../db/orders.js';
import { computeTotals } from './totals.js';

// The steps of an order's entry (DECISIONS.md "Entering orders"), decided without I/O from the
// checkout's input and the facts read under the seller's lock: refusal (the first rule the input
// breaks, named by its input path), freezing (each line as the buyer saw it) and money (shipping,
// tax and totals). src/orders/checkout.ts runs them in that order between its reads and writes.

export interface CheckoutLine {
  skuId: number;
  quantity: number;
}

export interface CheckoutInput {
  orderId: string;
  sellerId: number;
  currency: string;
  customer: Customer;
  lines: readonly CheckoutLine[];
  /** Required unless operator. */
  shippingMethod?: string | undefined;
  tax?: readonly TaxRate[] | undefined;
  buyerNotes?: string | undefined;
  /** An operator order carries no money: no totals, shipping or tax. */
  operator?: boolean | undefined;
}

/** A refused entry; `path` is relative to the input, e.g. `lines[0].skuId`. */
export class CheckoutError extends Error {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path}: ${detail}`);
    this.name = 'CheckoutError';
  }
}

/** No lines, no order (checked before the facts too: for no skus the facts statement finds no row). */
export function linesRefusal(input: CheckoutInput): CheckoutError | null {
  return input.lines.length === 0 ? new CheckoutError('lines', 'expected at least one line') : null;
}

/** Seller ids are int4 (and so is the seller lock's key): anything else names no seller. */
export function sellerIdRefusal(sellerId: number): CheckoutError | null {
  return Number.isInteger(sellerId) && sellerId >= 1 && sellerId <= 2147483647 ? null : noSuchSeller(sellerId);
}

export const noSuchSeller = (sellerId: number) => new CheckoutError('sellerId', `seller ${sellerId} does not exist`);

/**
 * The first rule an entry breaks, or null: the currency, each sku once, then line by line a
 * shown offer of a browse-eligible store with the units available, then the shipping option
 * (required, and the seller's) or, on an operator order, neither shipping nor tax.
 */
export function refusal(input: CheckoutInput, facts: EntryFacts): CheckoutError | null {
  const { seller, offers } = facts;
  const noLines = linesRefusal(input);
  if (noLines) return noLines;
  if (input.currency !== seller.currency) {
    return new CheckoutError('currency', `expected the seller's currency ${seller.currency}, got ${input.currency}`);
  }
  const seen = new Map<number, number>();
  for (const [j, l] of input.lines.entries()) {
    const first = seen.get(l.skuId);
    if (first !== undefined) return new CheckoutError(`lines[${j}].skuId`, `duplicate sku ${l.skuId} (first at lines[${first}])`);
    seen.set(l.skuId, j);
  }
  for (const [j, l] of input.lines.entries()) {
    const refused = lineRefusal(input.sellerId, seller, offers[j]!, l, j);
    if (refused) return refused;
  }
  if (input.operator === true) {
    if (input.shippingMethod !== undefined) return new CheckoutError('shippingMethod', 'an operator order has no shipping option');
    if (input.tax !== undefined) return new CheckoutError('tax', 'an operator order has no tax');
    return null;
  }
  if (input.shippingMethod === undefined) return new CheckoutError('shippingMethod', 'required');
  if (seller.shipping === null) {
    return new CheckoutError('shippingMethod', `"${input.shippingMethod}" is not a shipping option of seller ${input.sellerId}`);
  }
  return null;
}

/** Line `j` must be a shown offer of the seller (DECISIONS.md browse gates) with the units asked for. */
function lineRefusal(sellerId: number, seller: EntrySeller, o: EntryOffer, l: CheckoutLine, j: number): CheckoutError | null {
  const notShown = (why: string) => new CheckoutError(`lines[${j}].skuId`, `sku ${l.skuId} is not a shown offer of seller ${sellerId}: ${why}`);
  if (seller.incomplete.length > 0) return notShown(`the store is not browse-eligible (${seller.incomplete.join(', ')})`);
  if (!o.listed) return notShown('no listing');
  if (!o.live) return notShown('the listing is deleted');
  if (!o.matched || o.productId === null) return notShown('the listing is unmatched');
  if (o.available < l.quantity) return new CheckoutError(`lines[${j}].quantity`, `${l.quantity} requested, ${o.available} available for sku ${l.skuId}`);
  return null;
}

/**
 * The order's lines as the buyer saw them, frozen: price, catalog names, disclosures and the
 * fulfillment obligation of each line's offer (`offers[j]` for `lines[j]`, refusal passed).
 */
export function freezeLines(lines: readonly CheckoutLine[], offers: readonly EntryOffer[]): OrderLineRow[] {
  return lines.map((l, j) => {
    const o = offers[j]!;
    return {
      position: j,
      skuId: l.skuId,
      productId: o.productId!,
      quantity: l.quantity,
      orderedQuantity: l.quantity,
      unitPrice: o.price,
      // Catalog nulls freeze as '' (DECISIONS.md "Fine points").
      name: o.name ?? '',
      setName: o.setName ?? '',
      condition: o.condition ?? '',
      language: o.language,
      finish: o.finish,
      externalRef: o.externalRef,
      disclosures: lineDisclosures(disclosuresFor(o.category)),
      fulfillmentObligation: { ...FULFILLMENT_OBLIGATION },
    };
  });
}

export type OrderMoney = Pick<
  NewOrder,
  'shippingMethod' | 'shippingCost' | 'shippingTracked' | 'taxRates' | 'subtotal' | 'tax' | 'grandTotal' | 'taxLines'
>;

const NO_MONEY: OrderMoney = {
  shippingMethod: null,
  shippingCost: null,
  shippingTracked: null,
  taxRates: [],
  subtotal: null,
  tax: null,
  grandTotal: null,
  taxLines: [],
};

/** Shipping, tax and totals of the frozen lines (refusal passed); none on an operator order. */
export function orderMoney(input: CheckoutInput, shipping: EntrySeller['shipping'], lines: readonly OrderLineRow[]): OrderMoney {
  if (input.operator === true) return { ...NO_MONEY, taxRates: [], taxLines: [] };
  if (input.shippingMethod === undefined || shipping === null) throw new Error('orderMoney: an order with money needs its shipping option');
  const rates = (input.tax ?? []).map((t) => ({ label: t.label, rate: t.rate }));
  const t = computeTotals(lines, shipping.cost, rates);
  return {
    shippingMethod: input.shippingMethod,
    shippingCost: shipping.cost,
    shippingTracked: shipping.tracked,
    taxRates: rates,
    subtotal: t.subtotal,
    tax: t.tax,
    grandTotal: t.grandTotal,
    taxLines: t.taxLines,
  };
}

/** The order as it is inserted: the input, the entry time, its money and its frozen lines. */
export function newOrder(input: CheckoutInput, createdAt: Date, money: OrderMoney, lines: OrderLineRow[]): NewOrder {
  return {
    orderId: input.orderId,
    sellerId: input.sellerId,
    hasMoney: input.operator !== true,
    createdAt,
    currency: input.currency,
    customer: input.customer,
    buyerNotes: input.buyerNotes ?? null,
    ...money,
    lines,
  };
}

/** The order as it stands at entry, before its first change: the row the order.created body is made from. */
export function enteredRow(order: NewOrder): OrderRow {
  return {
    ...order,
    status: 'created',
    updatedAt: order.createdAt,
    trackingCompany: null,
    trackingNumber: null,
    trackingUrl: null,
    changeXid: '0',
    changeSeq: 0,
  };
}
