import { randomBytes } from 'node:crypto';
import type { Pool, PoolClient } from './pool.js';

// The transactional outbox (migrations/1795400000000_orders.sql, webhook_events): one row per
// event, written on the caller's transaction beside the order change it reports. The dispatcher
// (`npm run webhooks`) delivers from it; nothing here sends anything.

export type WebhookEventType = 'order.created' | 'order.cancelled' | 'order.refunded' | 'inventory.adjusted';

export interface NewWebhookEvent {
  sellerId: number;
  orderId: string | null;
  type: WebhookEventType;
  /** The event's time (envelope `created_at`), millisecond precision. */
  createdAt: Date;
  /** The event's `data` as JSON text, exactly the bytes every delivery sends. */
  data: string;
}

// Crockford base32 (no i, l, o, u): 26 characters carry 130 random bits.
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** A fresh event id: `msg_` + 26 random base32 characters (the `webhook-id` of every attempt). */
export function newEventId(): string {
  const bytes = randomBytes(26);
  let out = 'msg_';
  // 256 is a multiple of 32, so `& 31` keeps every character equally likely.
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

/**
 * Writes one event; its state is `pending` when the seller has a webhook endpoint (the dispatcher
 * picks it up), else `no_endpoint` (polling serves it). Returns the event id.
 */
export async function insertWebhookEvent(c: PoolClient, e: NewWebhookEvent): Promise<string> {
  const id = newEventId();
  await c.query(webhookEventInsertSql(1), webhookEventValues(id, e));
  return id;
}

/**
 * The outbox INSERT with its six parameters numbered from `first` (event id, seller, order,
 * type, created_at, data), for a statement that writes the event beside the change it reports
 * (order entry: one round trip for the order and its order.created).
 */
export function webhookEventInsertSql(first: number): string {
  const [id, seller, order, type, at, data] = [0, 1, 2, 3, 4, 5].map((i) => `$${first + i}`);
  return `INSERT INTO webhook_events (event_id, seller_id, order_id, type, created_at, data, state)
     SELECT ${id}, ${seller}::int, ${order}, ${type}, ${at}::timestamptz, ${data},
            CASE WHEN EXISTS (SELECT 1 FROM seller_webhooks w WHERE w.seller_id = ${seller}::int) THEN 'pending' ELSE 'no_endpoint' END`;
}

/** The values of webhookEventInsertSql, in its order. */
export function webhookEventValues(eventId: string, e: NewWebhookEvent): unknown[] {
  return [eventId, e.sellerId, e.orderId, e.type, e.createdAt, e.data];
}

export interface StoredWebhookEvent {
  eventId: string;
  sellerId: number;
  orderId: string | null;
  type: WebhookEventType;
  apiVersion: string;
  createdAt: Date;
  data: string;
  state: 'pending' | 'delivered' | 'failed' | 'no_endpoint';
}

/** The events written for one order, oldest first (tests, ops); same-millisecond events in write order. */
export async function webhookEventsOfOrder(db: Pool | PoolClient, orderId: string): Promise<StoredWebhookEvent[]> {
  const { rows } = await db.query(
    `SELECT event_id, seller_id, order_id, type, api_version, created_at, data, state
       FROM webhook_events WHERE order_id = $1 ORDER BY created_at, xmin::text::bigint, event_id`,
    [orderId],
  );
  return rows.map((r) => ({
    eventId: r.event_id,
    sellerId: r.seller_id,
    orderId: r.order_id,
    type: r.type,
    apiVersion: r.api_version,
    createdAt: r.created_at,
    data: r.data,
    state: r.state,
  }));
}
