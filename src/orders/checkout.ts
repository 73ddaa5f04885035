import { withTransaction, type Pool, type PoolClient } from '../db/pool.js';
import { lockSellerListings, sellerListingsLock, LISTING_AVAILABLE_SQL } from '../db/listings.js';
import { insertOrder, type NewOrder, type OrderLineRow, type TaxRate } from '../db/orders.js';
import { newEventId } from '../db/webhook-events.js';
import type { Customer, LineDisclosures } from '../contract/orders.js';
import { FULFILLMENT_OBLIGATION, disclosuresFor } from '../contract/policy.js';
import { computeTotals } from './totals.js';
import { serializeOrder } from './serialize.js';

// Order entry: the one code path a checkout uses (DECISIONS.md "Entering orders"). The fixture
// loader calls it for `orders`; the bench measures it. Everything happens on the caller's
// transaction: validation, the frozen snapshot, holds and the order.created outbox row commit or
// roll back together.

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

export type CheckoutResult = { orderId: string; created: true; createdAt: Date; body: string } | { orderId: string; created: false };

interface SellerFacts {
  currency: string;
  incomplete: string[];
  shippingCost: number | null;
  shippingTracked: boolean | null;
  orderExists: boolean;
  now: Date;
}

interface OfferFacts {
  skuId: number;
  listed: boolean;
  live: boolean;
  matched: boolean;
  available: number;
  price: number;
  externalRef: string | null;
  productId: number | null;
  condition: string | null;
  language: string | null;
  finish: string | null;
  name: string | null;
  setName: string | null;
  category: string | null;
}

/**
 * In one statement (a round trip less per order): the seller with its readiness and the chosen
 * shipping option, whether the order id exists, the entry time, and the seller's listing of each
 * line's sku (input order) with its available units and catalog facts. Null: no such seller.
 * Runs after the lock, so `available` counts every hold committed before it.
 */
async function entryFacts(c: PoolClient, input: CheckoutInput): Promise<{ seller: SellerFacts; offers: OfferFacts[] } | null> {
  const { rows } = await c.query({
    name: 'checkout-entry-facts',
    text: `WITH s AS (
       SELECT s.seller_id, s.currency, r.incomplete, o.cost AS shipping_cost, o.tracked AS shipping_tracked,
              EXISTS (SELECT 1 FROM orders x WHERE x.order_id = $3) AS order_exists,
              date_trunc('milliseconds', clock_timestamp()) AS now
         FROM sellers s
         JOIN seller_readiness r ON r.seller_id = s.seller_id
         LEFT JOIN seller_shipping_options o ON o.seller_id = s.seller_id AND o.method = $2
        WHERE s.seller_id = $1)
     SELECT s.currency, s.incomplete, s.shipping_cost, s.shipping_tracked, s.order_exists, s.now,
            u.sku_id, l.sku_id IS NOT NULL AS listed, l.deleted_at IS NULL AS live, l.match_status = 'matched' AS matched,
            CASE WHEN l.sku_id IS NULL THEN 0 ELSE ${LISTING_AVAILABLE_SQL} END AS available,
            l.price, l.external_ref, k.product_id, k.condition, k.language, k.finish, p.name, p.set_name, p.category
       FROM s
      CROSS JOIN unnest($4::int[]) WITH ORDINALITY AS u(sku_id, ord)
       LEFT JOIN listings l ON l.seller_id = s.seller_id AND l.sku_id = u.sku_id
       LEFT JOIN skus k ON k.sku_id = u.sku_id
       LEFT JOIN products p ON p.product_id = k.product_id
      ORDER BY u.ord`,
    values: [input.sellerId, input.shippingMethod ?? null, input.orderId, input.lines.map((l) => l.skuId)],
  });
  const r0 = rows[0];
  if (!r0) return null;
  return {
    seller: {
      currency: r0.currency,
      incomplete: r0.incomplete,
      shippingCost: r0.shipping_cost,
      shippingTracked: r0.shipping_tracked,
      orderExists: r0.order_exists,
      now: r0.now,
    },
    offers: rows.map((r) => ({
      skuId: r.sku_id,
      listed: r.listed,
      live: r.live,
      matched: r.matched,
      available: r.available,
      price: r.price,
      externalRef: r.external_ref,
      productId: r.product_id,
      condition: r.condition,
      language: r.language,
      finish: r.finish,
      name: r.name,
      setName: r.set_name,
      category: r.category,
    })),
  };
}

function snakeDisclosures(category: string | null): LineDisclosures {
  const d = disclosuresFor(category);
  return {
    image_source: d.imageSource,
    condition_source: d.conditionSource,
    authenticity_source: d.authenticitySource,
    service_inspected: d.serviceInspected,
    service_graded: d.serviceGraded,
    service_authenticated: d.serviceAuthenticated,
    grading_standard: d.gradingStandard,
    declared_grade: d.declaredGrade,
    buyer_protection: d.buyerProtection,
  } as LineDisclosures;
}

/**
 * Enters one order on the caller's transaction, or refuses it with a CheckoutError naming the
 * input path. An order id that already exists is left as it is ({created: false}: no second hold,
 * no second event). Entries of one seller serialize on the seller's listing lock (the one every
 * listing writer takes), so two entries for the last unit never both succeed.
 */
export async function enterOrder(c: PoolClient, input: CheckoutInput): Promise<CheckoutResult> {
  if (input.lines.length === 0) throw new CheckoutError('lines', 'expected at least one line');
  await lockSellerListings(c, input.sellerId);
  return enterLocked(c, input);
}

/**
 * A checkout's entry of one order in a transaction of its own: enterOrder in three round trips
 * (BEGIN with the seller lock, the facts, one insert of order, lines, holds and outbox row) and
 * COMMIT. A refused entry rolls back and throws its CheckoutError.
 */
export async function checkoutOrder(pool: Pool, input: CheckoutInput): Promise<CheckoutResult> {
  if (input.lines.length === 0) throw new CheckoutError('lines', 'expected at least one line');
  // Seller ids are int4 (the lock key is too): anything else names no seller.
  if (!Number.isInteger(input.sellerId) || input.sellerId < 1 || input.sellerId > 2147483647) {
    throw new CheckoutError('sellerId', `seller ${input.sellerId} does not exist`);
  }
  return withTransaction(pool, (c) => enterLocked(c, input), {
    advisoryLock: sellerListingsLock(input.sellerId),
    local: { plan_cache_mode: 'force_generic_plan' },
  });
}

/** enterOrder once the seller's listing lock is held. */
async function enterLocked(c: PoolClient, input: CheckoutInput): Promise<CheckoutResult> {
  const facts = await entryFacts(c, input);
  if (!facts) throw new CheckoutError('sellerId', `seller ${input.sellerId} does not exist`);
  const { seller, offers } = facts;
  if (seller.orderExists) return { orderId: input.orderId, created: false };
  if (input.currency !== seller.currency) {
    throw new CheckoutError('currency', `expected the seller's currency ${seller.currency}, got ${input.currency}`);
  }
  const seen = new Map<number, number>();
  input.lines.forEach((l, j) => {
    const first = seen.get(l.skuId);
    if (first !== undefined) throw new CheckoutError(`lines[${j}].skuId`, `duplicate sku ${l.skuId} (first at lines[${first}])`);
    seen.set(l.skuId, j);
  });

  const lines: OrderLineRow[] = input.lines.map((l, j) => {
    const o = offers[j]!;
    const notShown = (why: string) => new CheckoutError(`lines[${j}].skuId`, `sku ${l.skuId} is not a shown offer of seller ${input.sellerId}: ${why}`);
    if (seller.incomplete.length > 0) throw notShown(`the store is not browse-eligible (${seller.incomplete.join(', ')})`);
    if (!o.listed) throw notShown('no listing');
    if (!o.live) throw notShown('the listing is deleted');
    if (!o.matched || o.productId === null) throw notShown('the listing is unmatched');
    if (o.available < l.quantity) {
      throw new CheckoutError(`lines[${j}].quantity`, `${l.quantity} requested, ${o.available} available for sku ${l.skuId}`);
    }
    return {
      position: j,
      skuId: l.skuId,
      productId: o.productId,
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
      disclosures: snakeDisclosures(o.category),
      fulfillmentObligation: { ...FULFILLMENT_OBLIGATION },
    };
  });

  const operator = input.operator === true;
  let money: Pick<NewOrder, 'shippingMethod' | 'shippingCost' | 'shippingTracked' | 'taxRates' | 'subtotal' | 'tax' | 'grandTotal' | 'taxLines'>;
  if (operator) {
    if (input.shippingMethod !== undefined) throw new CheckoutError('shippingMethod', 'an operator order has no shipping option');
    if (input.tax !== undefined) throw new CheckoutError('tax', 'an operator order has no tax');
    money = { shippingMethod: null, shippingCost: null, shippingTracked: null, taxRates: [], subtotal: null, tax: null, grandTotal: null, taxLines: [] };
  } else {
    if (input.shippingMethod === undefined) throw new CheckoutError('shippingMethod', 'required');
    if (seller.shippingCost === null || seller.shippingTracked === null) {
      throw new CheckoutError('shippingMethod', `"${input.shippingMethod}" is not a shipping option of seller ${input.sellerId}`);
    }
    const rates = (input.tax ?? []).map((t) => ({ label: t.label, rate: t.rate }));
    const t = computeTotals(lines, seller.shippingCost, rates);
    money = {
      shippingMethod: input.shippingMethod,
      shippingCost: seller.shippingCost,
      shippingTracked: seller.shippingTracked,
      taxRates: rates,
      subtotal: t.subtotal,
      tax: t.tax,
      grandTotal: t.grandTotal,
      taxLines: t.taxLines,
    };
  }

  const order: NewOrder = {
    orderId: input.orderId,
    sellerId: input.sellerId,
    hasMoney: !operator,
    createdAt: seller.now,
    currency: input.currency,
    customer: input.customer,
    buyerNotes: input.buyerNotes ?? null,
    ...money,
    lines,
  };
  const body = serializeOrder(
    {
      ...order,
      status: 'created',
      updatedAt: order.createdAt,
      trackingCompany: null,
      trackingNumber: null,
      trackingUrl: null,
      changeXid: '0',
      changeSeq: 0,
    },
    lines,
  );
  await insertOrder(c, order, { eventId: newEventId(), data: body });
  return { orderId: input.orderId, created: true, createdAt: order.createdAt, body };
}
