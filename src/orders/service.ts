import type { Pool } from '../db/pool.js';
import { SNAPSHOT, withTransaction } from '../db/pool.js';
import { lockOrder, pollOrders, readOrder, reduceLines, setCancelled, updateFulfillment, type ChangePosition, type OrderRow } from '../db/orders.js';
import { cancelEventOf } from '../db/sellers.js';
import { insertWebhookEvent } from '../db/webhook-events.js';
import { feedGuard } from '../db/feed-guard.js';
import type { CancelBody, FulfillmentBody } from '../contract/orders.js';
import { orderNotFound } from './errors.js';
import { planCancel, planFulfillment, type Adjustment } from './moves.js';
import { serializeOrder } from './serialize.js';

// The order operations of the seller API. Each returns the Order body's JSON text (the route
// splices it into the envelope); each move is one transaction under the order's row lock.

/** GET /orders/{orderId}: the body, or null for an unknown or another seller's order. */
export async function orderJson(pool: Pool, sellerId: number, orderId: string): Promise<string | null> {
  // Order and lines from one snapshot: a partial cancel between two statements would otherwise
  // pair the old totals with the new line quantities.
  const o = await withTransaction(pool, (c) => readOrder(c, sellerId, orderId), SNAPSHOT);
  return o && serializeOrder(o.order, o.lines);
}

export interface PollPage {
  items: string[];
  /** Position of the last item, when another page may follow. */
  next: ChangePosition | null;
}

/**
 * One poll page: the seller's orders in commit-ordered change position after `after`, only below
 * the change feed's guard, so a transaction still running (and every change after its position)
 * is never passed over: it shows on a later poll from the same cursor.
 */
export async function pollPage(
  pool: Pool,
  sellerId: number,
  opts: { after: ChangePosition | null; since: string | null; limit: number },
): Promise<PollPage> {
  // The guard first, the rows in a later snapshot, which sees every commit below the guard (the
  // guard's own snapshot may predate a commit below it). Orders and their lines are read in that
  // one snapshot, so an item never pairs an order row with lines of another moment.
  const guard = await feedGuard(pool);
  const rows = await withTransaction(
    pool,
    (c) => pollOrders(c, sellerId, { after: opts.after, guard, since: opts.since, limit: opts.limit + 1 }),
    SNAPSHOT,
  );
  const page = rows.slice(0, opts.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((o) => serializeOrder(o.order, o.lines)),
    next: rows.length > opts.limit && last ? { xid: last.order.changeXid, seq: last.order.changeSeq } : null,
  };
}

export interface MoveResult {
  body: string;
  changed: boolean;
  from: string;
  to: string;
}

/** PATCH /orders/{orderId}/fulfillment on a body already validated. */
export async function moveFulfillment(pool: Pool, sellerId: number, orderId: string, body: FulfillmentBody): Promise<MoveResult> {
  return withTransaction(pool, async (c) => {
    const locked = await lockOrder(c, sellerId, orderId);
    if (!locked) throw orderNotFound();
    const plan = planFulfillment(locked.order, body);
    if (plan.kind === 'unchanged') {
      return { body: serializeOrder(locked.order, locked.lines), changed: false, from: locked.order.status, to: locked.order.status };
    }
    // Shipping releases the holds by the status alone (only created/accepted hold); no event.
    const row = await updateFulfillment(c, orderId, plan);
    return { body: serializeOrder(row, locked.lines), changed: true, from: locked.order.status, to: row.status };
  });
}

function adjustedData(row: OrderRow, adjustments: Adjustment[]): string {
  return JSON.stringify({
    seller_id: row.sellerId,
    order_id: row.orderId,
    created_at: row.updatedAt.toISOString(),
    adjustments: adjustments.map((a) => ({ sku_id: a.skuId, product_id: a.productId, quantity: a.quantity, external_ref: a.externalRef })),
  });
}

/** POST /orders/{orderId}/cancel on a body already validated. */
export async function cancelOrder(pool: Pool, sellerId: number, orderId: string, body: CancelBody): Promise<MoveResult> {
  return withTransaction(pool, async (c) => {
    const locked = await lockOrder(c, sellerId, orderId);
    if (!locked) throw orderNotFound();
    const plan = planCancel(locked.order, locked.lines, body);
    const from = locked.order.status;
    if (plan.kind === 'unchanged') return { body: serializeOrder(locked.order, locked.lines), changed: false, from, to: from };

    let row: OrderRow;
    let lines = locked.lines;
    if (plan.kind === 'whole') {
      // The status releases every hold (only created/accepted orders hold).
      row = await setCancelled(c, orderId);
    } else {
      row = await reduceLines(c, orderId, plan.remaining, plan.totals);
      const now = new Map(plan.remaining.map((r) => [r.skuId, r.quantity]));
      lines = lines.map((l) => (now.has(l.skuId) ? { ...l, quantity: now.get(l.skuId)! } : l));
    }
    const text = serializeOrder(row, lines);
    const type = await cancelEventOf(c, sellerId);
    await insertWebhookEvent(c, {
      sellerId,
      orderId,
      type,
      createdAt: row.updatedAt,
      data: type === 'order.cancelled' ? text : adjustedData(row, plan.adjustments),
    });
    return { body: text, changed: true, from, to: row.status };
  });
}
