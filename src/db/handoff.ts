import type { PoolClient } from './pool.js';
import type { ReplaceCount } from './sellers.js';
import { displayText } from '../lib/display-text.js';

// SQL of handoff (manual checkout) stores, their reviews and variants. Same conventions as
// sellers.ts: set-based, identical rows untouched, "replace" = make the rows equal the list.

export interface HandoffStoreRow {
  storeSlug: string;
  storeName: string;
  sellerCode: string | null;
  active: boolean;
}
export interface StoreReviewRow {
  storeSlug: string;
  position: number;
  score: number;
}
/** A handoff variant row: what the writes take and the read model's source reads (offer-source.ts). */
export interface VariantFacts {
  variantId: number;
  storeSlug: string;
  skuId: number;
  productId: number;
  price: number;
  quantity: number;
}

/** seller_code -> store_slug for the existing stores using these codes. */
export async function findStoresByCode(c: PoolClient, codes: readonly string[]): Promise<Map<string, string>> {
  if (codes.length === 0) return new Map();
  const { rows } = await c.query<{ code: string; slug: string }>(
    'SELECT seller_code AS code, store_slug AS slug FROM handoff_stores WHERE seller_code = ANY($1::text[])',
    [codes],
  );
  return new Map(rows.map((r) => [r.code, r.slug]));
}

export async function upsertHandoffStores(c: PoolClient, rows: readonly HandoffStoreRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await c.query(
    `INSERT INTO handoff_stores AS t (store_slug, store_name, seller_code, active)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bool[])
     ON CONFLICT (store_slug) DO UPDATE SET store_name = EXCLUDED.store_name, seller_code = EXCLUDED.seller_code, active = EXCLUDED.active
     WHERE (t.store_name, t.seller_code, t.active) IS DISTINCT FROM (EXCLUDED.store_name, EXCLUDED.seller_code, EXCLUDED.active)`,
    [rows.map((r) => r.storeSlug), rows.map((r) => displayText(r.storeName)), rows.map((r) => r.sellerCode), rows.map((r) => r.active)],
  );
  return res.rowCount ?? 0;
}

export async function replaceStoreReviews(c: PoolClient, slugs: readonly string[], rows: readonly StoreReviewRow[]): Promise<ReplaceCount> {
  if (slugs.length === 0) return { written: 0, deleted: 0 };
  const rowSlugs = rows.map((r) => r.storeSlug);
  const positions = rows.map((r) => r.position);
  const del = await c.query(
    `DELETE FROM handoff_store_reviews r WHERE r.store_slug = ANY($1::text[])
        AND (r.store_slug, r.position) NOT IN (SELECT * FROM unnest($2::text[], $3::int[]))`,
    [slugs, rowSlugs, positions],
  );
  const ins =
    rows.length === 0
      ? null
      : await c.query(
          `INSERT INTO handoff_store_reviews AS t (store_slug, position, score)
     SELECT * FROM unnest($1::text[], $2::int[], $3::smallint[])
     ON CONFLICT (store_slug, position) DO UPDATE SET score = EXCLUDED.score
     WHERE t.score IS DISTINCT FROM EXCLUDED.score`,
          [rowSlugs, positions, rows.map((r) => r.score)],
        );
  return { written: ins?.rowCount ?? 0, deleted: del.rowCount ?? 0 };
}

/**
 * Makes the variants of these stores equal `rows` (a variant may move between stores: ids are
 * global). match_status follows the catalog: matched when the sku exists.
 */
export async function replaceVariants(c: PoolClient, slugs: readonly string[], rows: readonly VariantFacts[]): Promise<ReplaceCount> {
  if (slugs.length === 0) return { written: 0, deleted: 0 };
  const del = await c.query('DELETE FROM handoff_variants v WHERE v.store_slug = ANY($1::text[]) AND v.variant_id <> ALL($2::int[])', [
    slugs,
    rows.map((r) => r.variantId),
  ]);
  const ins = rows.length === 0 ? null : await upsertVariants(c, rows);
  return { written: ins ?? 0, deleted: del.rowCount ?? 0 };
}

/** Insert or update by variant_id (no deletes); used by replaceVariants and bulk loads. */
export async function upsertVariants(c: PoolClient, rows: readonly VariantFacts[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await c.query(
    `INSERT INTO handoff_variants AS t (variant_id, store_slug, sku_id, product_id, price, quantity, match_status)
     SELECT f.*, CASE WHEN EXISTS (SELECT 1 FROM skus s WHERE s.sku_id = f.sku_id) THEN 'matched' ELSE 'unmatched' END
       FROM unnest($1::int[], $2::text[], $3::int[], $4::int[], $5::int[], $6::int[])
            AS f(variant_id, store_slug, sku_id, product_id, price, quantity)
     ON CONFLICT (variant_id) DO UPDATE SET store_slug = EXCLUDED.store_slug, sku_id = EXCLUDED.sku_id,
       product_id = EXCLUDED.product_id, price = EXCLUDED.price, quantity = EXCLUDED.quantity, match_status = EXCLUDED.match_status
     WHERE (t.store_slug, t.sku_id, t.product_id, t.price, t.quantity, t.match_status)
       IS DISTINCT FROM (EXCLUDED.store_slug, EXCLUDED.sku_id, EXCLUDED.product_id, EXCLUDED.price, EXCLUDED.quantity, EXCLUDED.match_status)`,
    [
      rows.map((r) => r.variantId),
      rows.map((r) => r.storeSlug),
      rows.map((r) => r.skuId),
      rows.map((r) => r.productId),
      rows.map((r) => r.price),
      rows.map((r) => r.quantity),
    ],
  );
  return res.rowCount ?? 0;
}
