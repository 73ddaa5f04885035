import type { QueryResultRow } from 'pg';
import type { Pool, PoolClient } from './pool.js';
import type { FulfillmentObligation } from '../contract/buyer.js';
import type { Customer, LineDisclosures, OrderStatus } from '../contract/orders.js';
import { LISTING_AVAILABLE_SQL } from './listings.js';
import { webhookEventInsertSql, webhookEventValues } from './webhook-events.js';

// SQL of orders, order_lines and holds (migrations/1795400000000_orders.sql). Every update of an
// orders row is a change: the stamp_change trigger gives it a new (change_xid, change_seq) and
// updated_at, so callers update the row only when something really changes.

type Db = Pool | PoolClient;

export interface TaxRate {
  label: string;
  rate: number;
}
export interface TaxLine {
  label: string;
  rate: number;
  amount: number;
}

export interface OrderRow {
  orderId: string;
  sellerId: number;
  status: OrderStatus;
  hasMoney: boolean;
  createdAt: Date;
  updatedAt: Date;
  currency: string;
  customer: Customer;
  buyerNotes: string | null;
  shippingMethod: string | null;
  shippingCost: number | null;
  shippingTracked: boolean | null;
  taxRates: TaxRate[];
  subtotal: number | null;
  tax: number | null;
  grandTotal: number | null;
  taxLines: TaxLine[];
  trackingCompany: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
  /** xid8 as decimal text. */
  changeXid: string;
  changeSeq: number;
}

export interface OrderLineRow {
  position: number;
  skuId: number;
  productId: number;
  quantity: number;
  orderedQuantity: number;
  unitPrice: number;
  name: string;
  setName: string;
  condition: string;
  language: string | null;
  finish: string | null;
  externalRef: string | null;
  disclosures: LineDisclosures | null;
  fulfillmentObligation: FulfillmentObligation | null;
}

export interface OrderWithLines {
  order: OrderRow;
  lines: OrderLineRow[];
}

const ORDER_COLUMNS = `o.order_id, o.seller_id, o.status, o.has_money, o.created_at, o.updated_at, o.currency, o.customer,
  o.buyer_notes, o.shipping_method, o.shipping_cost, o.shipping_tracked, o.tax_rates, o.subtotal, o.tax, o.grand_total,
  o.tax_lines, o.tracking_company, o.tracking_number, o.tracking_url, o.change_xid::text AS change_xid_text, o.change_seq`;

function orderRow(r: QueryResultRow): OrderRow {
  return {
    orderId: r.order_id,
    sellerId: r.seller_id,
    status: r.status,
    hasMoney: r.has_money,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    currency: r.currency,
    customer: r.customer,
    buyerNotes: r.buyer_notes,
    shippingMethod: r.shipping_method,
    shippingCost: r.shipping_cost,
    shippingTracked: r.shipping_tracked,
    taxRates: r.tax_rates,
    subtotal: r.subtotal,
    tax: r.tax,
    grandTotal: r.grand_total,
    taxLines: r.tax_lines,
    trackingCompany: r.tracking_company,
    trackingNumber: r.tracking_number,
    trackingUrl: r.tracking_url,
    changeXid: r.change_xid_text,
    changeSeq: r.change_seq,
  };
}

// disclosures and fulfillment_obligation come as text: they take a handful of distinct values, so
// parsing each distinct text once (instead of every line of a 1000-order poll page) saves most of
// the page's JSON parsing.
const LINE_COLUMNS = `l.order_id, l.position, l.sku_id, l.product_id, l.quantity, l.ordered_quantity, l.unit_price, l.name,
  l.set_name, l.condition, l.language, l.finish, l.external_ref, l.disclosures::text AS disclosures_text,
  l.fulfillment_obligation::text AS obligation_text`;

const parsedJson = new Map<string, unknown>();
function parseConstant<T>(text: string | null): T | null {
  if (text === null) return null;
  let v = parsedJson.get(text);
  if (v === undefined) {
    if (parsedJson.size >= 1000) parsedJson.clear();
    v = Object.freeze(JSON.parse(text));
    parsedJson.set(text, v);
  }
  return v as T;
}

function lineRow(r: QueryResultRow): OrderLineRow {
  return {
    position: r.position,
    skuId: r.sku_id,
    productId: r.product_id,
    quantity: r.quantity,
    orderedQuantity: r.ordered_quantity,
    unitPrice: r.unit_price,
    name: r.name,
    setName: r.set_name,
    condition: r.condition,
    language: r.language,
    finish: r.finish,
    externalRef: r.external_ref,
    disclosures: parseConstant<LineDisclosures>(r.disclosures_text),
    fulfillmentObligation: parseConstant<FulfillmentObligation>(r.obligation_text),
  };
}

/** Lines of these orders in position order, grouped by order id. */
async function linesOf(db: Db, orderIds: string[]): Promise<Map<string, OrderLineRow[]>> {
  const out = new Map<string, OrderLineRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return out;
  const { rows } = await db.query(`SELECT ${LINE_COLUMNS} FROM order_lines l WHERE l.order_id = ANY($1::text[]) ORDER BY l.order_id, l.position`, [
    orderIds,
  ]);
  for (const r of rows) out.get(r.order_id)?.push(lineRow(r));
  return out;
}

/** One order of this seller with its lines, or null (unknown, or another seller's). */
export async function readOrder(db: Db, sellerId: number, orderId: string): Promise<OrderWithLines | null> {
  const { rows } = await db.query(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.order_id = $1 AND o.seller_id = $2`, [orderId, sellerId]);
  if (rows.length === 0) return null;
  const order = orderRow(rows[0]);
  return { order, lines: (await linesOf(db, [orderId])).get(orderId)! };
}

/**
 * readOrder under a row lock (FOR UPDATE): two moves of one order serialize here, and the second
 * reads the first's committed result (READ COMMITTED re-reads the locked row).
 */
export async function lockOrder(c: PoolClient, sellerId: number, orderId: string): Promise<OrderWithLines | null> {
  const { rows } = await c.query(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.order_id = $1 AND o.seller_id = $2 FOR UPDATE`, [orderId, sellerId]);
  if (rows.length === 0) return null;
  const order = orderRow(rows[0]);
  return { order, lines: (await linesOf(c, [orderId])).get(orderId)! };
}

export interface ChangePosition {
  xid: string;
  seq: number;
}

/**
 * One page of the seller's orders in change order: (change_xid, change_seq) after `after`, only
 * below `guard` (the feed guard: no transaction still running can commit a position below it),
 * updated at or after `since` when given.
 */
export async function pollOrders(
  db: Db,
  sellerId: number,
  opts: { after: ChangePosition | null; guard: string; since: string | null; limit: number },
): Promise<OrderWithLines[]> {
  const { rows } = await db.query(
    // change_xid_text, not change_xid, is the text name: ORDER BY must compare xid8, not text.
    `SELECT ${ORDER_COLUMNS} FROM orders o
      WHERE o.seller_id = $1
        AND ($2::xid8 IS NULL OR (o.change_xid, o.change_seq) > ($2::xid8, $3::bigint))
        AND o.change_xid < $4::xid8
        AND ($5::timestamptz IS NULL OR o.updated_at >= $5::timestamptz)
      ORDER BY o.change_xid, o.change_seq
      LIMIT $6`,
    [sellerId, opts.after?.xid ?? null, opts.after?.seq ?? null, opts.guard, opts.since, opts.limit],
  );
  const orders = rows.map(orderRow);
  const lines = await linesOf(
    db,
    orders.map((o) => o.orderId),
  );
  return orders.map((order) => ({ order, lines: lines.get(order.orderId)! }));
}

// ---------------------------------------------------------------------------------------------
// Entry

/** The seller as an order's entry sees it. */
export interface EntrySeller {
  currency: string;
  /** Unmet browse prerequisites (seller_readiness); empty when the store is browse-eligible. */
  incomplete: string[];
  /** The chosen shipping option; null when the seller has none by that name (or none was named). */
  shipping: { cost: number; tracked: boolean } | null;
  orderExists: boolean;
  /** The entry time (clock_timestamp, to the millisecond): the order's created_at. */
  now: Date;
}

/** The seller's listing of one line's sku, with its available units and catalog facts. */
export interface EntryOffer {
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

export interface EntryFacts {
  seller: EntrySeller;
  /** One per requested sku, in the request's order. */
  offers: EntryOffer[];
}

/**
 * In one statement (a round trip less per order): the seller with its readiness and the chosen
 * shipping option, whether the order id exists, the entry time, and the seller's listing of each
 * sku (in the given order) with its available units and catalog facts. Null: no such seller.
 * Run after the seller's listing lock, `available` counts every hold committed before it.
 */
export async function readEntryFacts(
  c: PoolClient,
  q: { sellerId: number; orderId: string; shippingMethod: string | null; skuIds: number[] },
): Promise<EntryFacts | null> {
  const { rows } = await c.query({
    // Named: parsed and planned once per connection, not per order.
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
    values: [q.sellerId, q.shippingMethod, q.orderId, q.skuIds],
  });
  const r0 = rows[0];
  if (!r0) return null;
  return {
    seller: {
      currency: r0.currency,
      incomplete: r0.incomplete,
      // cost and tracked are NOT NULL columns: both are null only when the LEFT JOIN found no option.
      shipping: r0.shipping_cost === null ? null : { cost: r0.shipping_cost, tracked: r0.shipping_tracked },
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

/** An order as the checkout enters it: the stored row's fields that exist before its first change, and its lines. */
export type NewOrder = Omit<OrderRow, 'status' | 'updatedAt' | 'trackingCompany' | 'trackingNumber' | 'trackingUrl' | 'changeXid' | 'changeSeq'> & {
  lines: OrderLineRow[];
};

/**
 * Inserts the order, its lines, one hold per line and its order.created outbox row in one
 * statement (one round trip: entry is the checkout's hot path). The entry is the order's first
 * change, at its created_at (updated_at = created_at).
 */
export async function insertOrder(c: PoolClient, o: NewOrder, created: { eventId: string; data: string }): Promise<void> {
  await c.query({
    // Named: parsed and planned once per connection, not per order.
    name: 'insert-order',
    text: `WITH ord AS (
       INSERT INTO orders (order_id, seller_id, status, has_money, created_at, updated_at, currency, customer, buyer_notes,
                           shipping_method, shipping_cost, shipping_tracked, tax_rates, subtotal, tax, grand_total, tax_lines)
       VALUES ($1, $2, 'created', $3, $4, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       RETURNING order_id, seller_id),
     lin AS (
       INSERT INTO order_lines (order_id, position, sku_id, product_id, quantity, ordered_quantity, unit_price, name, set_name,
                                condition, language, finish, external_ref, disclosures, fulfillment_obligation)
       SELECT ord.order_id, f.position, f.sku_id, f.product_id, f.quantity, f.quantity, f.unit_price, f.name, f.set_name,
              f.condition, f.language, f.finish, f.external_ref, f.disclosures, f.obligation
         FROM ord, unnest($16::int[], $17::int[], $18::int[], $19::int[], $20::int[], $21::text[], $22::text[], $23::text[],
                          $24::text[], $25::text[], $26::text[], $27::jsonb[], $28::jsonb[])
              AS f(position, sku_id, product_id, quantity, unit_price, name, set_name, condition, language, finish,
                   external_ref, disclosures, obligation)),
     hol AS (
       INSERT INTO holds (order_id, seller_id, sku_id, quantity)
       SELECT ord.order_id, ord.seller_id, f.sku_id, f.quantity FROM ord, unnest($17::int[], $19::int[]) AS f(sku_id, quantity))
     ${webhookEventInsertSql(29)}`,
    values: [
      o.orderId,
      o.sellerId,
      o.hasMoney,
      o.createdAt,
      o.currency,
      JSON.stringify(o.customer),
      o.buyerNotes,
      o.shippingMethod,
      o.shippingCost,
      o.shippingTracked,
      JSON.stringify(o.taxRates),
      o.subtotal,
      o.tax,
      o.grandTotal,
      JSON.stringify(o.taxLines),
      o.lines.map((l) => l.position),
      o.lines.map((l) => l.skuId),
      o.lines.map((l) => l.productId),
      o.lines.map((l) => l.quantity),
      o.lines.map((l) => l.unitPrice),
      o.lines.map((l) => l.name),
      o.lines.map((l) => l.setName),
      o.lines.map((l) => l.condition),
      o.lines.map((l) => l.language),
      o.lines.map((l) => l.finish),
      o.lines.map((l) => l.externalRef),
      o.lines.map((l) => (l.disclosures === null ? null : JSON.stringify(l.disclosures))),
      o.lines.map((l) => (l.fulfillmentObligation === null ? null : JSON.stringify(l.fulfillmentObligation))),
      ...webhookEventValues(created.eventId, {
        sellerId: o.sellerId,
        orderId: o.orderId,
        type: 'order.created',
        createdAt: o.createdAt,
        data: created.data,
      }),
    ],
  });
}

// ---------------------------------------------------------------------------------------------
// Moves

/** Sets status and tracking; the trigger stamps the change. Returns the row as stored. */
export async function updateFulfillment(
  c: PoolClient,
  orderId: string,
  f: { status: OrderStatus; trackingCompany: string | null; trackingNumber: string | null; trackingUrl: string | null },
): Promise<OrderRow> {
  const { rows } = await c.query(
    `UPDATE orders o SET status = $2, tracking_company = $3, tracking_number = $4, tracking_url = $5
      WHERE o.order_id = $1 RETURNING ${ORDER_COLUMNS}`,
    [orderId, f.status, f.trackingCompany, f.trackingNumber, f.trackingUrl],
  );
  return orderRow(rows[0]);
}

/** Whole-order cancel: the status alone changes (lines and totals stay as they were). */
export async function setCancelled(c: PoolClient, orderId: string): Promise<OrderRow> {
  const { rows } = await c.query(`UPDATE orders o SET status = 'cancelled' WHERE o.order_id = $1 RETURNING ${ORDER_COLUMNS}`, [orderId]);
  return orderRow(rows[0]);
}

/**
 * Line cancel: each named line keeps `quantity` units (0 leaves the order's lines), its hold
 * shrinks the same way (deleted at 0), and the order's totals are replaced. Returns the order row.
 */
export async function reduceLines(
  c: PoolClient,
  orderId: string,
  remaining: { skuId: number; quantity: number }[],
  totals: { subtotal: number | null; tax: number | null; grandTotal: number | null; taxLines: TaxLine[] },
): Promise<OrderRow> {
  const skus = remaining.map((r) => r.skuId);
  const qty = remaining.map((r) => r.quantity);
  await c.query(
    `WITH lin AS (
       UPDATE order_lines l SET quantity = f.quantity
         FROM unnest($2::int[], $3::int[]) AS f(sku_id, quantity)
        WHERE l.order_id = $1 AND l.sku_id = f.sku_id),
     del AS (
       DELETE FROM holds h USING unnest($2::int[], $3::int[]) AS f(sku_id, quantity)
        WHERE h.order_id = $1 AND h.sku_id = f.sku_id AND f.quantity = 0)
     UPDATE holds h SET quantity = least(h.quantity, f.quantity)
       FROM unnest($2::int[], $3::int[]) AS f(sku_id, quantity)
      WHERE h.order_id = $1 AND h.sku_id = f.sku_id AND f.quantity > 0 AND h.quantity > f.quantity`,
    [orderId, skus, qty],
  );
  const { rows } = await c.query(
    `UPDATE orders o SET subtotal = $2, tax = $3, grand_total = $4, tax_lines = $5 WHERE o.order_id = $1 RETURNING ${ORDER_COLUMNS}`,
    [orderId, totals.subtotal, totals.tax, totals.grandTotal, JSON.stringify(totals.taxLines)],
  );
  return orderRow(rows[0]);
}
