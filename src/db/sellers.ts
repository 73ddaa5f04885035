import type { PoolClient } from './pool.js';
import { displayText } from '../lib/display-text.js';

// SQL of native sellers and their child rows (prerequisites, shipping options, reviews, API keys,
// webhooks). Upserts skip identical rows (IS DISTINCT FROM) so rewriting the same data is a no-op
// for the update triggers and the change feed. A "replace" makes a seller's child rows equal the
// given list: rows not in it are deleted, the rest upserted.

export interface SellerRow {
  sellerId: number;
  sellerCode: string;
  storeName: string;
  currency: string;
  region: string;
  active: boolean;
  vacation: boolean;
  inventorySource: 'platform' | 'manual' | 'csv';
  poBoxDelivery: 'available' | 'seller_declines';
  termsVersion: string | null;
}

export interface ShippingOptionRow {
  sellerId: number;
  method: string;
  cost: number;
  tracked: boolean;
  position: number;
}
export interface ReviewRow {
  sellerId: number;
  position: number;
  score: number;
}
export interface PrerequisiteRow {
  sellerId: number;
  code: string;
}
/** keyHash: SHA-256 of the whole key, hex; the plaintext never reaches the database. */
export interface ApiKeyRow {
  sellerId: number;
  keyHash: string;
}
export interface WebhookRow {
  sellerId: number;
  url: string;
  secret: string;
  cancelEvent: 'order.cancelled' | 'inventory.adjusted';
}

export async function findSellerIds(c: PoolClient, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const { rows } = await c.query<{ id: number }>('SELECT seller_id AS id FROM sellers WHERE seller_id = ANY($1::int[])', [ids]);
  return new Set(rows.map((r) => r.id));
}

/** seller_code -> seller_id for the existing sellers using these codes. */
export async function findSellersByCode(c: PoolClient, codes: readonly string[]): Promise<Map<string, number>> {
  if (codes.length === 0) return new Map();
  const { rows } = await c.query<{ code: string; id: number }>(
    'SELECT seller_code AS code, seller_id AS id FROM sellers WHERE seller_code = ANY($1::text[])',
    [codes],
  );
  return new Map(rows.map((r) => [r.code, r.id]));
}

/** sha256 hex -> seller_id for the existing keys with these hashes. */
export async function findApiKeyOwners(c: PoolClient, hashes: readonly string[]): Promise<Map<string, number>> {
  if (hashes.length === 0) return new Map();
  const { rows } = await c.query<{ hash: string; id: number }>(
    `SELECT encode(key_hash, 'hex') AS hash, seller_id AS id FROM api_keys
      WHERE key_hash = ANY(ARRAY(SELECT decode(h, 'hex') FROM unnest($1::text[]) h))`,
    [hashes],
  );
  return new Map(rows.map((r) => [r.hash, r.id]));
}

export async function upsertSellers(c: PoolClient, rows: readonly SellerRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await c.query(
    `INSERT INTO sellers AS t (seller_id, seller_code, store_name, currency, region, active, vacation,
                               inventory_source, po_box_delivery, terms_version)
     SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bool[], $7::bool[],
                          $8::text[], $9::text[], $10::text[])
     ON CONFLICT (seller_id) DO UPDATE SET
       seller_code = EXCLUDED.seller_code, store_name = EXCLUDED.store_name, currency = EXCLUDED.currency,
       region = EXCLUDED.region, active = EXCLUDED.active, vacation = EXCLUDED.vacation,
       inventory_source = EXCLUDED.inventory_source, po_box_delivery = EXCLUDED.po_box_delivery,
       terms_version = EXCLUDED.terms_version
     WHERE (t.seller_code, t.store_name, t.currency, t.region, t.active, t.vacation, t.inventory_source,
            t.po_box_delivery, t.terms_version)
       IS DISTINCT FROM (EXCLUDED.seller_code, EXCLUDED.store_name, EXCLUDED.currency, EXCLUDED.region,
            EXCLUDED.active, EXCLUDED.vacation, EXCLUDED.inventory_source, EXCLUDED.po_box_delivery,
            EXCLUDED.terms_version)`,
    [
      rows.map((r) => r.sellerId),
      rows.map((r) => r.sellerCode),
      rows.map((r) => displayText(r.storeName)),
      rows.map((r) => r.currency),
      rows.map((r) => r.region),
      rows.map((r) => r.active),
      rows.map((r) => r.vacation),
      rows.map((r) => r.inventorySource),
      rows.map((r) => r.poBoxDelivery),
      rows.map((r) => r.termsVersion),
    ],
  );
  return res.rowCount ?? 0;
}

/** Rows written (inserted/updated) and deleted by a replace. */
export interface ReplaceCount {
  written: number;
  deleted: number;
}

export async function replacePrerequisites(c: PoolClient, sellerIds: readonly number[], rows: readonly PrerequisiteRow[]): Promise<ReplaceCount> {
  if (sellerIds.length === 0) return { written: 0, deleted: 0 };
  const ids = rows.map((r) => r.sellerId);
  const codes = rows.map((r) => r.code);
  const del = await c.query(
    `DELETE FROM seller_prerequisites p WHERE p.seller_id = ANY($1::int[])
        AND (p.seller_id, p.code) NOT IN (SELECT * FROM unnest($2::int[], $3::text[]))`,
    [sellerIds, ids, codes],
  );
  const ins =
    rows.length === 0
      ? null
      : await c.query(
          `INSERT INTO seller_prerequisites (seller_id, code) SELECT * FROM unnest($1::int[], $2::text[])
     ON CONFLICT DO NOTHING`,
          [ids, codes],
        );
  return { written: ins?.rowCount ?? 0, deleted: del.rowCount ?? 0 };
}

export async function replaceShippingOptions(c: PoolClient, sellerIds: readonly number[], rows: readonly ShippingOptionRow[]): Promise<ReplaceCount> {
  if (sellerIds.length === 0) return { written: 0, deleted: 0 };
  const ids = rows.map((r) => r.sellerId);
  const methods = rows.map((r) => r.method);
  const del = await c.query(
    `DELETE FROM seller_shipping_options o WHERE o.seller_id = ANY($1::int[])
        AND (o.seller_id, o.method) NOT IN (SELECT * FROM unnest($2::int[], $3::text[]))`,
    [sellerIds, ids, methods],
  );
  const ins =
    rows.length === 0
      ? null
      : await c.query(
          `INSERT INTO seller_shipping_options AS t (seller_id, method, cost, tracked, position)
     SELECT * FROM unnest($1::int[], $2::text[], $3::int[], $4::bool[], $5::int[])
     ON CONFLICT (seller_id, method) DO UPDATE SET cost = EXCLUDED.cost, tracked = EXCLUDED.tracked, position = EXCLUDED.position
     WHERE (t.cost, t.tracked, t.position) IS DISTINCT FROM (EXCLUDED.cost, EXCLUDED.tracked, EXCLUDED.position)`,
          [ids, methods, rows.map((r) => r.cost), rows.map((r) => r.tracked), rows.map((r) => r.position)],
        );
  return { written: ins?.rowCount ?? 0, deleted: del.rowCount ?? 0 };
}

export async function replaceReviews(c: PoolClient, sellerIds: readonly number[], rows: readonly ReviewRow[]): Promise<ReplaceCount> {
  if (sellerIds.length === 0) return { written: 0, deleted: 0 };
  const ids = rows.map((r) => r.sellerId);
  const positions = rows.map((r) => r.position);
  const del = await c.query(
    `DELETE FROM seller_reviews r WHERE r.seller_id = ANY($1::int[])
        AND (r.seller_id, r.position) NOT IN (SELECT * FROM unnest($2::int[], $3::int[]))`,
    [sellerIds, ids, positions],
  );
  const ins =
    rows.length === 0
      ? null
      : await c.query(
          `INSERT INTO seller_reviews AS t (seller_id, position, score)
     SELECT * FROM unnest($1::int[], $2::int[], $3::smallint[])
     ON CONFLICT (seller_id, position) DO UPDATE SET score = EXCLUDED.score
     WHERE t.score IS DISTINCT FROM EXCLUDED.score`,
          [ids, positions, rows.map((r) => r.score)],
        );
  return { written: ins?.rowCount ?? 0, deleted: del.rowCount ?? 0 };
}

/** A listed key that was revoked becomes live again: the list is the desired state. */
export async function replaceApiKeys(c: PoolClient, sellerIds: readonly number[], rows: readonly ApiKeyRow[]): Promise<ReplaceCount> {
  if (sellerIds.length === 0) return { written: 0, deleted: 0 };
  const hashes = rows.map((r) => r.keyHash);
  const del = await c.query(
    `DELETE FROM api_keys k WHERE k.seller_id = ANY($1::int[])
        AND k.key_hash <> ALL(ARRAY(SELECT decode(h, 'hex') FROM unnest($2::text[]) h))`,
    [sellerIds, hashes],
  );
  const ins =
    rows.length === 0
      ? null
      : await c.query(
          `INSERT INTO api_keys AS t (seller_id, key_hash)
     SELECT s, decode(h, 'hex') FROM unnest($1::int[], $2::text[]) AS f(s, h)
     ON CONFLICT (key_hash) DO UPDATE SET seller_id = EXCLUDED.seller_id, revoked_at = NULL
     WHERE (t.seller_id, t.revoked_at) IS DISTINCT FROM (EXCLUDED.seller_id, NULL::timestamptz)`,
          [rows.map((r) => r.sellerId), hashes],
        );
  return { written: ins?.rowCount ?? 0, deleted: del.rowCount ?? 0 };
}

/** Sellers in scope without a row in `rows` lose their webhook subscription. */
export async function replaceWebhooks(c: PoolClient, sellerIds: readonly number[], rows: readonly WebhookRow[]): Promise<ReplaceCount> {
  if (sellerIds.length === 0) return { written: 0, deleted: 0 };
  const ids = rows.map((r) => r.sellerId);
  const del = await c.query('DELETE FROM seller_webhooks w WHERE w.seller_id = ANY($1::int[]) AND w.seller_id <> ALL($2::int[])', [sellerIds, ids]);
  const ins =
    rows.length === 0
      ? null
      : await c.query(
          `INSERT INTO seller_webhooks AS t (seller_id, url, secret, cancel_event)
     SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[])
     ON CONFLICT (seller_id) DO UPDATE SET url = EXCLUDED.url, secret = EXCLUDED.secret, cancel_event = EXCLUDED.cancel_event
     WHERE (t.url, t.secret, t.cancel_event) IS DISTINCT FROM (EXCLUDED.url, EXCLUDED.secret, EXCLUDED.cancel_event)`,
          [ids, rows.map((r) => r.url), rows.map((r) => r.secret), rows.map((r) => r.cancelEvent)],
        );
  return { written: ins?.rowCount ?? 0, deleted: del.rowCount ?? 0 };
}

/** The event a cancel of this seller's orders emits (seller_webhooks.cancel_event; default order.cancelled). */
export async function cancelEventOf(c: PoolClient, sellerId: number): Promise<'order.cancelled' | 'inventory.adjusted'> {
  const { rows } = await c.query('SELECT cancel_event FROM seller_webhooks WHERE seller_id = $1', [sellerId]);
  return rows[0]?.cancel_event ?? 'order.cancelled';
}
