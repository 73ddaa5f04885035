import { withTransaction, type Pool } from '../../src/db/pool.js';
import { lockManySellersListings } from '../../src/db/listings.js';
import { readOrder } from '../../src/db/orders.js';
import { cancelBodySchema, fulfillmentBodySchema } from '../../src/contract/orders.js';
import { enterOrder } from '../../src/orders/checkout.js';
import { cancelOrder, moveFulfillment } from '../../src/orders/service.js';
import type { SampleOrder } from './orders.js';
import type { Progress, TableStat } from './pg-load.js';

// Enters sample orders the way a checkout does (enterOrder), then moves some through the seller API's own operations
// (src/orders/service.ts: one transaction per move, under the order's row lock).
// Re-running changes nothing: an existing order id is left as it is, and an order is moved only
// while it is exactly as entered (status created, no line cancelled): a moved order is never
// moved twice, and orders a run interrupted before moving are moved by the next run.

const ENTRY_TRANSACTIONS = 3;
const MOVE_CONCURRENCY = 4;

/**
 * The orders split by seller into `n` groups of about equal size (deterministic). Stock is per
 * seller, so groups are independent: each enters in its own transaction, concurrently, with its
 * sellers' orders in run order (checkout counts the earlier ones' holds).
 */
export function entryGroups(orders: readonly SampleOrder[], n: number): SampleOrder[][] {
  const bySeller = new Map<number, SampleOrder[]>();
  for (const o of orders) {
    const list = bySeller.get(o.order.sellerId);
    if (list) list.push(o);
    else bySeller.set(o.order.sellerId, [o]);
  }
  const groups = Array.from({ length: n }, () => [] as SampleOrder[]);
  // Biggest sellers first, each to the smallest group so far.
  for (const list of [...bySeller.values()].sort((a, b) => b.length - a.length || a[0]!.order.sellerId - b[0]!.order.sellerId)) {
    groups.reduce((min, g) => (g.length < min.length ? g : min)).push(...list);
  }
  return groups.filter((g) => g.length > 0);
}

export interface OrderLoadStats {
  entered: TableStat;
  moved: TableStat;
}

export async function loadSampleOrders(pool: Pool, orders: readonly SampleOrder[], progress: Progress): Promise<OrderLoadStats> {
  let started = performance.now();
  const fresh = new Set<string>();
  // A refused order rolls back its own group (and fails the run); a re-run enters what is missing.
  await Promise.all(
    entryGroups(orders, ENTRY_TRANSACTIONS).map((group) =>
      withTransaction(pool, async (c) => {
        // The group's seller locks at once, in ascending order (as the fixture loader does): no
        // deadlock with a listing writer or another load; entries take them again re-entrantly.
        await lockManySellersListings(
          c,
          group.map((o) => o.order.sellerId),
        );
        for (const o of group) {
          const r = await enterOrder(c, { ...o.order, orderId: o.orderId });
          if (r.created) fresh.add(o.orderId);
          progress.row('orders');
        }
      }),
    ),
  );
  const entered: TableStat = { table: 'orders', rows: orders.length, written: fresh.size, ms: Math.round(performance.now() - started) };
  progress.done(entered);

  started = performance.now();
  // The moves look orders up by id: plans for the tables as they are now, not as they were empty.
  await pool.query('ANALYZE orders, order_lines, holds');
  const toMove = orders.filter((o) => o.moves.length > 0);
  let moved = 0;
  const moveOne = async (o: SampleOrder) => {
    if (!fresh.has(o.orderId)) {
      const now = await readOrder(pool, o.order.sellerId, o.orderId);
      const asEntered = now !== null && now.order.status === 'created' && now.lines.every((l) => l.quantity === l.orderedQuantity);
      if (!asEntered) return;
    }
    for (const m of o.moves) {
      // The API's own body checks first, so the sample never sends what a Platform could not.
      if (m.kind === 'fulfillment') await moveFulfillment(pool, o.order.sellerId, o.orderId, fulfillmentBodySchema.parse(m.body));
      else await cancelOrder(pool, o.order.sellerId, o.orderId, cancelBodySchema.parse(m.body));
    }
    moved++;
    progress.row('order moves');
  };
  // Orders are independent: a few in flight at once; each order's moves in sequence.
  let next = 0;
  await Promise.all(
    Array.from({ length: MOVE_CONCURRENCY }, async () => {
      while (next < toMove.length) await moveOne(toMove[next++]!);
    }),
  );
  const movedStat: TableStat = { table: 'order moves', rows: toMove.length, written: moved, ms: Math.round(performance.now() - started) };
  progress.done(movedStat);
  return { entered, moved: movedStat };
}
