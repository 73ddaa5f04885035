import { withTransaction, type Pool, type PoolClient } from '../db/pool.js';
import { lockSellerListings, sellerListingsLock } from '../db/listings.js';
import { insertOrder, readEntryFacts } from '../db/orders.js';
import { newEventId } from '../db/webhook-events.js';
import { enteredRow, freezeLines, linesRefusal, newOrder, noSuchSeller, orderMoney, refusal, sellerIdRefusal, type CheckoutInput } from './entry.js';
import { serializeOrder } from './serialize.js';

// Order entry: the one code path a checkout uses (DECISIONS.md "Entering orders"). The fixture
// loader calls it for `orders`; the bench measures it. Everything happens on the caller's
// transaction: validation, the frozen snapshot, holds and the order.created outbox row commit or
// roll back together. The steps themselves are pure (src/orders/entry.ts); this file reads,
// runs them in order and writes.

export type CheckoutResult = { orderId: string; created: true; createdAt: Date; body: string } | { orderId: string; created: false };

/**
 * Enters one order on the caller's transaction, or refuses it with a CheckoutError naming the
 * input path. An order id that already exists is left as it is ({created: false}: no second hold,
 * no second event). Entries of one seller serialize on the seller's listing lock (the one every
 * listing writer takes), so two entries for the last unit never both succeed.
 */
export async function enterOrder(c: PoolClient, input: CheckoutInput): Promise<CheckoutResult> {
  const noLines = linesRefusal(input);
  if (noLines) throw noLines;
  await lockSellerListings(c, input.sellerId);
  return enterLocked(c, input);
}

/**
 * A checkout's entry of one order in a transaction of its own: enterOrder in four round trips
 * (BEGIN with the seller lock, the facts, one insert of order, lines, holds and outbox row,
 * COMMIT). A refused entry rolls back and throws its CheckoutError.
 */
export async function checkoutOrder(pool: Pool, input: CheckoutInput): Promise<CheckoutResult> {
  const refused = linesRefusal(input) ?? sellerIdRefusal(input.sellerId);
  if (refused) throw refused;
  return withTransaction(pool, (c) => enterLocked(c, input), {
    advisoryLock: sellerListingsLock(input.sellerId),
    local: { plan_cache_mode: 'force_generic_plan' },
  });
}

/** enterOrder once the seller's listing lock is held. */
async function enterLocked(c: PoolClient, input: CheckoutInput): Promise<CheckoutResult> {
  // 1. Facts: the seller, its shipping option and each line's offer, in one statement.
  const facts = await readEntryFacts(c, {
    sellerId: input.sellerId,
    orderId: input.orderId,
    shippingMethod: input.shippingMethod ?? null,
    skuIds: input.lines.map((l) => l.skuId),
  });
  if (!facts) throw noSuchSeller(input.sellerId);
  // 2. An order id entered before is left as it is.
  if (facts.seller.orderExists) return { orderId: input.orderId, created: false };
  // 3. Refusal: the first rule the input breaks.
  const refused = refusal(input, facts);
  if (refused) throw refused;
  // 4. Freezing and money.
  const lines = freezeLines(input.lines, facts.offers);
  const order = newOrder(input, facts.seller.now, orderMoney(input, facts.seller.shipping, lines), lines);
  // 5. The Order body (the order.created event's data) and one insert of order, lines, holds and event.
  const body = serializeOrder(enteredRow(order), lines);
  await insertOrder(c, order, { eventId: newEventId(), data: body });
  return { orderId: input.orderId, created: true, createdAt: order.createdAt, body };
}
