// Verifying a webhook delivery (Standard Webhooks: webhook-id, webhook-timestamp,
// webhook-signature over "{id}.{timestamp}.{body}") and reading its typed event.
import { Webhook, WebhookVerificationError as StandardError } from 'standardwebhooks';
import { MarketplaceError } from './errors.js';
import type { Order } from './types.js';

export interface InventoryAdjusted {
  seller_id: number;
  order_id: string;
  created_at: string;
  /** Units restocked, positive. */
  adjustments: { sku_id: number; product_id: number; quantity: number; external_ref: string | null }[];
}

interface Envelope<T extends string, D> {
  /** The event id (the webhook-id of every attempt): deliveries repeat, dedupe on it. */
  id: string;
  type: T;
  api_version: string;
  created_at: string;
  data: D;
}
export type WebhookEvent =
  | Envelope<'order.created', Order>
  | Envelope<'order.cancelled', Order>
  | Envelope<'order.refunded', Order>
  | Envelope<'inventory.adjusted', InventoryAdjusted>;

export type WebhookFailure = 'missing-headers' | 'bad-signature' | 'stale-timestamp' | 'malformed-body';

export class WebhookVerificationError extends MarketplaceError {
  override name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(message);
  }
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const found = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const v = found === undefined ? undefined : bag[found];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The event of a delivery whose signature is the endpoint secret's (`whsec_...`) and whose
 * timestamp is within five minutes of now; otherwise a WebhookVerificationError saying why.
 * `rawBody` must be the bytes as received (parsed and re-serialized JSON no longer verifies).
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: HeaderBag, secret: string): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const wanted = {
    'webhook-id': header(headers, 'webhook-id'),
    'webhook-timestamp': header(headers, 'webhook-timestamp'),
    'webhook-signature': header(headers, 'webhook-signature'),
  };
  if (!wanted['webhook-id'] || !wanted['webhook-timestamp'] || !wanted['webhook-signature']) {
    throw new WebhookVerificationError('missing-headers', 'the delivery lacks webhook-id, webhook-timestamp or webhook-signature');
  }
  try {
    new Webhook(secret).verify(body, wanted as Record<string, string>);
  } catch (err) {
    if (!(err instanceof StandardError)) throw err;
    const stale = /timestamp too (old|new)/i.test(err.message);
    throw new WebhookVerificationError(stale ? 'stale-timestamp' : 'bad-signature', `webhook not verified: ${err.message}`);
  }
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError('malformed-body', 'the signed body is not JSON');
  }
  const e = event as Partial<WebhookEvent> | null;
  if (!e || typeof e.id !== 'string' || typeof e.type !== 'string' || typeof e.data !== 'object' || e.data === null) {
    throw new WebhookVerificationError('malformed-body', 'the signed body is not an event envelope');
  }
  return e as WebhookEvent;
}
