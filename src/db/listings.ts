import type { Pool, PoolClient } from './pool.js';
import { copyRows, createStage, mapRows, timedCopy, type BulkCount } from './copy.js';

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

/** Upsert of pushed listings from a source with columns (seller_id, sku_id, product_id, price, quantity, external_ref, as_of). */
const upsertPushedListingsFrom = (source: string) => `
  INSERT INTO listings AS t (seller_id, sku_id, product_id, price, quantity, external_ref, as_of, match_status, deleted_at)
  SELECT f.seller_id, f.sku_id, f.product_id, f.price, f.quantity, f.external_ref, f.as_of,
         CASE WHEN EXISTS (SELECT 1 FROM skus s WHERE s.sku_id = f.sku_id) THEN 'matched' ELSE 'unmatched' END, NULL::timestamptz
    FROM ${source}
  ON CONFLICT (seller_id, sku_id) DO UPDATE SET product_id = EXCLUDED.product_id, price = EXCLUDED.price,
    quantity = EXCLUDED.quantity, external_ref = EXCLUDED.external_ref, as_of = EXCLUDED.as_of,
    match_status = EXCLUDED.match_status, deleted_at = NULL
  WHERE (t.product_id, t.price, t.quantity, t.external_ref, t.as_of, t.match_status, t.deleted_at)
    IS DISTINCT FROM (EXCLUDED.product_id, EXCLUDED.price, EXCLUDED.quantity, EXCLUDED.external_ref,
                      EXCLUDED.as_of, EXCLUDED.match_status, NULL::timestamptz)`;

/**
 * Bulk upsert by (seller_id, sku_id) for ops loads (fixture loader, sample data): the listing is
 * live, matched when its sku is in the catalog. Identical rows are not touched, so a reload adds
 * no change feed row and keeps updated_at.
 */
export async function upsertPushedListings(c: PoolClient, rows: readonly PushedListingRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await c.query(
    upsertPushedListingsFrom(`unnest($1::int[], $2::int[], $3::int[], $4::int[], $5::int[], $6::text[], $7::timestamptz[])
      AS f(seller_id, sku_id, product_id, price, quantity, external_ref, as_of)`),
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

/** upsertPushedListings for millions of rows: COPY into a staging table, then one upsert. */
export async function bulkUpsertPushedListings(c: PoolClient, rows: Iterable<PushedListingRow>, onRow?: () => void): Promise<BulkCount> {
  await createStage(c, 'stage_listings', 'seller_id int, sku_id int, product_id int, price int, quantity int, external_ref text, as_of timestamptz');
  const [copied, copyMs] = await timedCopy(() =>
    copyRows(
      c,
      'stage_listings',
      ['seller_id', 'sku_id', 'product_id', 'price', 'quantity', 'external_ref', 'as_of'],
      mapRows(rows, (r) => [r.sellerId, r.skuId, r.productId, r.price, r.quantity, r.externalRef, r.asOf]),
      onRow,
    ),
  );
  const res = await c.query(upsertPushedListingsFrom('stage_listings f'));
  return { copied, written: res.rowCount ?? 0, copyMs };
}

// ---------------------------------------------------------------------------------------------
// Seller integration API: listing writes, purge and export (src/api/routes/seller/*).

/**
 * Serializes listing writes (bulk/single upsert, delete, purge) of one seller: transaction-scoped
 * advisory lock (class 0x4C53_0001 = "LS" listings, object = seller id). Requests of one seller
 * therefore apply in arrival order, and updated_at order equals commit order per seller, which
 * keeps export keyset pagination on (updated_at, listing_id) from skipping a concurrently
 * committed row. Different sellers never wait for each other.
 */
export async function lockSellerListings(c: PoolClient, sellerId: number): Promise<void> {
  await c.query('SELECT pg_advisory_xact_lock($1, $2)', sellerListingsLock(sellerId));
}

const SELLER_LISTINGS_LOCK_SPACE = 1280442369;

/** The keys of lockSellerListings, for a transaction that takes the lock with its BEGIN. */
export function sellerListingsLock(sellerId: number): [number, number] {
  return [SELLER_LISTINGS_LOCK_SPACE, sellerId];
}

/** A stored listing as the write planner needs it; as_of in microseconds since the epoch (exact). */
export interface StoredListingRow {
  skuId: number;
  productId: number;
  price: number;
  quantity: number;
  externalRef: string | null;
  asOfMicros: bigint | null;
  deleted: boolean;
  matched: boolean;
}

/**
 * The seller's stored listings (live or deleted) for these skus. Call under lockSellerListings:
 * every seller-API listing writer holds that lock, so the rows cannot change before the write
 * (no FOR UPDATE needed; row locks would dirty every page just to read it).
 */
export async function storedListingsForWrite(c: PoolClient, sellerId: number, skuIds: readonly number[]): Promise<StoredListingRow[]> {
  if (skuIds.length === 0) return [];
  const { rows } = await c.query<{
    sku_id: number;
    product_id: number;
    price: number;
    quantity: number;
    external_ref: string | null;
    as_of_us: string | null;
    deleted: boolean;
    matched: boolean;
  }>(
    // One primary-key probe per sku (LATERAL ... LIMIT 1 keeps the planner from turning it into a
    // scan of the seller's whole range when the table's statistics are stale, e.g. a fresh table
    // filling up; BENCHMARKS.md, "Seller bulk upsert").
    `SELECT l.sku_id, l.product_id, l.price, l.quantity, l.external_ref,
            ((extract(epoch FROM l.as_of) * 1000000)::bigint)::text AS as_of_us,
            l.deleted_at IS NOT NULL AS deleted, l.match_status = 'matched' AS matched
       FROM unnest($2::int[]) AS u(sku_id)
      CROSS JOIN LATERAL (SELECT * FROM listings x WHERE x.seller_id = $1 AND x.sku_id = u.sku_id LIMIT 1) l`,
    [sellerId, skuIds],
  );
  return rows.map((r) => ({
    skuId: r.sku_id,
    productId: r.product_id,
    price: r.price,
    quantity: r.quantity,
    externalRef: r.external_ref,
    asOfMicros: r.as_of_us === null ? null : BigInt(r.as_of_us),
    deleted: r.deleted,
    matched: r.matched,
  }));
}

/** sku id -> product id of the catalog skus among these ids. */
export async function catalogProductsOfSkus(c: PoolClient, skuIds: readonly number[]): Promise<Map<number, number>> {
  if (skuIds.length === 0) return new Map();
  const { rows } = await c.query<{ sku_id: number; product_id: number }>(
    `SELECT k.sku_id, k.product_id FROM unnest($1::int[]) AS u(sku_id)
      CROSS JOIN LATERAL (SELECT sku_id, product_id FROM skus s WHERE s.sku_id = u.sku_id LIMIT 1) k`,
    [skuIds],
  );
  return new Map(rows.map((r) => [r.sku_id, r.product_id]));
}

/** The final state of one sku's listing after a write request; asOf is exact timestamptz text. */
export interface ListingWriteRow {
  skuId: number;
  productId: number;
  price: number;
  quantity: number;
  externalRef: string | null;
  asOf: string | null;
  deleted: boolean;
  /** From the catalog lookup made in the same transaction (catalogProductsOfSkus). */
  matched: boolean;
}

/**
 * Writes the final rows of a write request in one statement: insert new listings, update
 * changed ones, soft-delete (keeping an existing deleted_at) or revive. match_status comes from
 * the catalog lookup of the same transaction (a per-statement EXISTS over skus made the planner
 * hash the whole catalog; BENCHMARKS.md, "Seller bulk upsert"). Rows identical to the stored ones are skipped
 * (IS DISTINCT FROM), so repeating a push changes nothing, not even updated_at.
 */
export async function writeListingRows(c: PoolClient, sellerId: number, rows: readonly ListingWriteRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await c.query(
    `INSERT INTO listings AS t (seller_id, sku_id, product_id, price, quantity, external_ref, as_of, match_status, deleted_at)
     SELECT $1, f.sku_id, f.product_id, f.price, f.quantity, f.external_ref, f.as_of,
            CASE WHEN f.matched THEN 'matched' ELSE 'unmatched' END, CASE WHEN f.deleted THEN now() END
       FROM unnest($2::int[], $3::int[], $4::int[], $5::int[], $6::text[], $7::timestamptz[], $8::bool[], $9::bool[])
            AS f(sku_id, product_id, price, quantity, external_ref, as_of, deleted, matched)
     ON CONFLICT (seller_id, sku_id) DO UPDATE SET product_id = EXCLUDED.product_id, price = EXCLUDED.price,
       quantity = EXCLUDED.quantity, external_ref = EXCLUDED.external_ref, as_of = EXCLUDED.as_of,
       match_status = EXCLUDED.match_status,
       deleted_at = CASE WHEN EXCLUDED.deleted_at IS NULL THEN NULL ELSE coalesce(t.deleted_at, EXCLUDED.deleted_at) END
     WHERE (t.product_id, t.price, t.quantity, t.external_ref, t.as_of, t.match_status, t.deleted_at IS NULL)
       IS DISTINCT FROM (EXCLUDED.product_id, EXCLUDED.price, EXCLUDED.quantity, EXCLUDED.external_ref,
                         EXCLUDED.as_of, EXCLUDED.match_status, EXCLUDED.deleted_at IS NULL)`,
    [
      sellerId,
      rows.map((r) => r.skuId),
      rows.map((r) => r.productId),
      rows.map((r) => r.price),
      rows.map((r) => r.quantity),
      rows.map((r) => r.externalRef),
      rows.map((r) => r.asOf),
      rows.map((r) => r.deleted),
      rows.map((r) => r.matched),
    ],
  );
  return res.rowCount ?? 0;
}

/** Soft-deletes every live listing of the seller; returns how many. */
export async function purgeSellerListings(c: PoolClient, sellerId: number): Promise<number> {
  const res = await c.query('UPDATE listings SET deleted_at = now() WHERE seller_id = $1 AND deleted_at IS NULL', [sellerId]);
  return res.rowCount ?? 0;
}

/**
 * SQL for a listing's `available` over a `listings` row aliased `l`: quantity minus outstanding
 * holds, floored at 0. A hold is outstanding while its order is created/accepted and the
 * listing's as_of is not at or after the order's created_at (DECISIONS.md "Browse gates and stock").
 */
export const LISTING_AVAILABLE_SQL = `greatest(l.quantity - coalesce((
    SELECT sum(h.quantity) FROM holds h JOIN orders o ON o.order_id = h.order_id
     WHERE h.seller_id = l.seller_id AND h.sku_id = l.sku_id
       AND o.status IN ('created', 'accepted')
       AND (l.as_of IS NULL OR l.as_of < o.created_at)), 0), 0)::int`;

export interface ExportPosition {
  /** updated_at as exact UTC text with microseconds. */
  updatedAt: string;
  listingId: number;
}

export interface ExportListingRow {
  listingId: number;
  skuId: number;
  productId: number;
  matchStatus: 'matched' | 'unmatched';
  quantity: number;
  available: number;
  price: number;
  externalRef: string | null;
  browsable: boolean;
  deletedAt: Date | null;
  updatedAt: Date;
  /** Exact updated_at (microseconds), for the next cursor. */
  updatedAtKey: string;
}

/** One page of the seller's listings in (updated_at, listing_id) order, after `after` when given. */
export async function exportSellerListings(
  pool: Pool,
  sellerId: number,
  opts: { limit: number; updatedSince: string | null; includeDeleted: boolean; after: ExportPosition | null },
): Promise<ExportListingRow[]> {
  const { rows } = await pool.query<{
    listing_id: number;
    sku_id: number;
    product_id: number;
    match_status: 'matched' | 'unmatched';
    quantity: number;
    available: number;
    price: number;
    external_ref: string | null;
    browsable: boolean;
    deleted_at: Date | null;
    updated_at: Date;
    updated_key: string;
  }>(
    `WITH r AS (SELECT cardinality(incomplete) = 0 AS eligible FROM seller_readiness WHERE seller_id = $1)
     SELECT l.listing_id, l.sku_id, l.product_id, l.match_status, l.quantity, ${LISTING_AVAILABLE_SQL} AS available,
            l.price, l.external_ref, (r.eligible AND l.deleted_at IS NULL AND l.match_status = 'matched') AS browsable,
            l.deleted_at, l.updated_at,
            to_char(l.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_key
       FROM listings l CROSS JOIN r
      WHERE l.seller_id = $1
        AND ($2::timestamptz IS NULL OR l.updated_at >= $2::timestamptz)
        AND ($3::boolean OR l.deleted_at IS NULL)
        AND ($4::timestamptz IS NULL OR (l.updated_at, l.listing_id) > ($4::timestamptz, $5::bigint))
      ORDER BY l.updated_at, l.listing_id
      LIMIT $6`,
    [sellerId, opts.updatedSince, opts.includeDeleted, opts.after?.updatedAt ?? null, opts.after?.listingId ?? null, opts.limit],
  );
  return rows.map((r) => ({
    listingId: r.listing_id,
    skuId: r.sku_id,
    productId: r.product_id,
    matchStatus: r.match_status,
    quantity: r.quantity,
    available: r.available,
    price: r.price,
    externalRef: r.external_ref,
    browsable: r.browsable,
    deletedAt: r.deleted_at,
    updatedAt: r.updated_at,
    updatedAtKey: r.updated_key,
  }));
}

/**
 * lockSellerListings for many sellers in one statement (ops loads), in ascending id order so two
 * loaders, or a loader and the seller API, cannot deadlock on each other.
 */
export async function lockManySellersListings(c: PoolClient, sellerIds: readonly number[]): Promise<void> {
  if (sellerIds.length === 0) return;
  await c.query('SELECT pg_advisory_xact_lock($2, s) FROM (SELECT DISTINCT s FROM unnest($1::int[]) s ORDER BY s) ids', [
    sellerIds,
    SELLER_LISTINGS_LOCK_SPACE,
  ]);
}
