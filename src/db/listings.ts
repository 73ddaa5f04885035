import type { PoolClient } from './pool.js';

/** A listing as an ops load stores it: as if the seller's source had pushed it. */
export interface PushedListingRow {
  sellerId: number;
  skuId: number;
  productId: number;
  price: number;
  quantity: number;
  externalRef: string | null;
  asOf: string | null;
}

/**
 * Bulk upsert by (seller_id, sku_id) for ops loads (fixture loader, sample data): the listing is
 * live, matched when its sku is in the catalog. Identical rows are not touched, so a reload adds
 * no change feed row and keeps updated_at.
 */
export async function upsertPushedListings(c: PoolClient, rows: readonly PushedListingRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await c.query(
    `INSERT INTO listings AS t (seller_id, sku_id, product_id, price, quantity, external_ref, as_of, match_status, deleted_at)
     SELECT f.*, CASE WHEN EXISTS (SELECT 1 FROM skus s WHERE s.sku_id = f.sku_id) THEN 'matched' ELSE 'unmatched' END, NULL::timestamptz
       FROM unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::int[], $6::text[], $7::timestamptz[])
            AS f(seller_id, sku_id, product_id, price, quantity, external_ref, as_of)
     ON CONFLICT (seller_id, sku_id) DO UPDATE SET product_id = EXCLUDED.product_id, price = EXCLUDED.price,
       quantity = EXCLUDED.quantity, external_ref = EXCLUDED.external_ref, as_of = EXCLUDED.as_of,
       match_status = EXCLUDED.match_status, deleted_at = NULL
     WHERE (t.product_id, t.price, t.quantity, t.external_ref, t.as_of, t.match_status, t.deleted_at)
       IS DISTINCT FROM (EXCLUDED.product_id, EXCLUDED.price, EXCLUDED.quantity, EXCLUDED.external_ref,
                         EXCLUDED.as_of, EXCLUDED.match_status, NULL::timestamptz)`,
    [
      rows.map((r) => r.sellerId),
      rows.map((r) => r.skuId),
      rows.map((r) => r.productId),
      rows.map((r) => r.price),
      rows.map((r) => r.quantity),
      rows.map((r) => r.externalRef),
      rows.map((r) => r.asOf),
    ],
  );
  return res.rowCount ?? 0;
}
