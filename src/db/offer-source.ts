import type { Pool, PoolClient } from './pool.js';
import { LISTING_AVAILABLE_SQL } from './listings.js';
import { displayText, safeImageUrl } from '../lib/display-text.js';
import type { ProductFacts, SkuFacts } from './catalog.js';
import type { HandoffStoreRow, VariantFacts } from './handoff.js';
import type { SellerRow } from './sellers.js';

// The read model's source: what the indexer (and the PostgreSQL fallback) reads to build buyer
// documents. Every query is set-based over an array of keys.

export type { ProductFacts, SkuFacts } from './catalog.js';
export type { VariantFacts } from './handoff.js';

type Db = Pool | PoolClient;

// Source facts: what PostgreSQL says about each entity, before any document is built from it. A
// product, sku or variant is the same row its table's writes take, declared once beside them.

export interface SellerFacts extends Pick<SellerRow, 'sellerId' | 'sellerCode' | 'storeName' | 'vacation' | 'poBoxDelivery'> {
  browseEligible: boolean;
}

/** A seller's counters as PostgreSQL counts them; read only for the seller document, never per offer. */
export interface SellerCounts {
  sellerId: number;
  salesCount: number;
  reviewSum: number;
  reviewCount: number;
}

export interface ListingFacts {
  sellerId: number;
  skuId: number;
  price: number;
  available: number;
}

export interface HandoffStoreFacts extends HandoffStoreRow {
  reviewSum: number;
  reviewCount: number;
}

/** A listing's `available` (quantity minus outstanding holds), defined with the listings table's SQL. */
export const AVAILABLE_SQL = LISTING_AVAILABLE_SQL;

export interface NativeRow {
  listing: ListingFacts;
  sku: SkuFacts;
}

/** One row of the native-offer queries below (they all select the same columns). */
function nativeRow(r: {
  seller_id: number;
  sku_id: number;
  price: number;
  available: number;
  product_id: number;
  condition: string | null;
  language: string | null;
  finish: string | null;
}): NativeRow {
  return {
    listing: { sellerId: r.seller_id, skuId: r.sku_id, price: r.price, available: r.available },
    sku: { skuId: r.sku_id, productId: r.product_id, condition: r.condition, language: r.language, finish: r.finish },
  };
}

/** Live, matched listings among the given pairs, with their catalog sku and available units. */
export async function nativeRows(db: Db, sellerIds: number[], skuIds: number[]): Promise<NativeRow[]> {
  if (sellerIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT l.seller_id, l.sku_id, l.price, ${AVAILABLE_SQL} AS available,
            s.product_id, s.condition, s.language, s.finish
       FROM unnest($1::int[], $2::int[]) AS k(seller_id, sku_id)
       JOIN listings l ON l.seller_id = k.seller_id AND l.sku_id = k.sku_id
       JOIN skus s ON s.sku_id = l.sku_id
      WHERE l.deleted_at IS NULL AND l.match_status = 'matched'`,
    [sellerIds, skuIds],
  );
  return rows.map(nativeRow);
}

/**
 * One keyset page of every live, matched listing in (seller_id, sku_id) order, with its catalog
 * sku and available units: what nativeRows() gives for the same pairs, read as one index range
 * instead of a page of keys plus one probe per key (full rebuilds).
 */
export async function nativeRowsPage(db: Db, after: Pair | null, limit: number): Promise<NativeRow[]> {
  // Named, so PostgreSQL plans each of the two statements once per connection instead of once per
  // page (BENCHMARKS.md, "The rebuild's producer").
  const { rows } = await db.query(
    after === null
      ? { name: 'native-rows-first-page', text: `${NATIVE_ROWS_PAGE} ORDER BY l.seller_id, l.sku_id LIMIT $1`, values: [limit] }
      : {
          name: 'native-rows-page',
          text: `${NATIVE_ROWS_PAGE} AND (l.seller_id, l.sku_id) > ($1::int, $2::int) ORDER BY l.seller_id, l.sku_id LIMIT $3`,
          values: [after.sellerId, after.skuId, limit],
        },
  );
  return rows.map(nativeRow);
}
const NATIVE_ROWS_PAGE = `SELECT l.seller_id, l.sku_id, l.price, ${AVAILABLE_SQL} AS available,
            s.product_id, s.condition, s.language, s.finish
       FROM listings l
       JOIN skus s ON s.sku_id = l.sku_id
      WHERE l.deleted_at IS NULL AND l.match_status = 'matched'`;

/** Every live, matched listing of these products' skus (shown or not: the builders decide): a product page, a card. */
export async function nativeRowsOfProducts(db: Db, productIds: number[]): Promise<NativeRow[]> {
  if (productIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT l.seller_id, l.sku_id, l.price, ${AVAILABLE_SQL} AS available,
            s.product_id, s.condition, s.language, s.finish
       FROM skus s
       JOIN listings l ON l.sku_id = s.sku_id
      WHERE s.product_id = ANY($1::int[]) AND l.deleted_at IS NULL AND l.match_status = 'matched'`,
    [productIds],
  );
  return rows.map(nativeRow);
}

export async function sellerFacts(db: Db, sellerIds: number[]): Promise<Map<number, SellerFacts>> {
  if (sellerIds.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT s.seller_id, s.seller_code, s.store_name, s.vacation, s.po_box_delivery,
            cardinality(r.incomplete) = 0 AS browse_eligible
       FROM sellers s
       JOIN seller_readiness r ON r.seller_id = s.seller_id
      WHERE s.seller_id = ANY($1::int[])`,
    [sellerIds],
  );
  return new Map(
    rows.map((r) => [
      r.seller_id,
      {
        sellerId: r.seller_id,
        sellerCode: r.seller_code,
        storeName: displayText(r.store_name),
        vacation: r.vacation,
        browseEligible: r.browse_eligible,
        poBoxDelivery: r.po_box_delivery,
      },
    ]),
  );
}

/**
 * The sellers' counters: salesCount = orders with money not cancelled or refunded (DECISIONS.md;
 * the partial index orders_sales keeps it an index-only count), and the review sum and count.
 * Only the seller document and the fallback's product page read them, never the offer builders.
 */
export async function sellerCounts(db: Db, sellerIds: number[]): Promise<Map<number, SellerCounts>> {
  if (sellerIds.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT s.seller_id,
            (SELECT count(*) FROM orders o
              WHERE o.seller_id = s.seller_id AND o.has_money AND o.status NOT IN ('cancelled', 'refunded'))::int AS sales_count,
            coalesce(rv.sum, 0)::int AS review_sum, coalesce(rv.count, 0)::int AS review_count
       FROM sellers s
       LEFT JOIN LATERAL (SELECT sum(score) AS sum, count(*) AS count FROM seller_reviews WHERE seller_id = s.seller_id) rv ON true
      WHERE s.seller_id = ANY($1::int[])`,
    [sellerIds],
  );
  return new Map(
    rows.map((r) => [r.seller_id, { sellerId: r.seller_id, salesCount: r.sales_count, reviewSum: r.review_sum, reviewCount: r.review_count }]),
  );
}

export async function productFacts(db: Db, productIds: number[]): Promise<Map<number, ProductFacts>> {
  if (productIds.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT product_id, name, set_name, category, rarity, collector_number, image_url, details
       FROM products WHERE product_id = ANY($1::int[])`,
    [productIds],
  );
  return new Map(
    rows.map((r) => [
      r.product_id,
      {
        productId: r.product_id,
        name: displayText(r.name),
        set: displayText(r.set_name),
        category: r.category,
        rarity: r.rarity,
        collectorNumber: r.collector_number,
        imageUrl: safeImageUrl(r.image_url),
        details: r.details,
      },
    ]),
  );
}

export async function skuFacts(db: Db, skuIds: number[]): Promise<Map<number, SkuFacts>> {
  if (skuIds.length === 0) return new Map();
  const { rows } = await db.query(`SELECT sku_id, product_id, condition, language, finish FROM skus WHERE sku_id = ANY($1::int[])`, [skuIds]);
  return new Map(
    rows.map((r) => [r.sku_id, { skuId: r.sku_id, productId: r.product_id, condition: r.condition, language: r.language, finish: r.finish }]),
  );
}

/** A handoff variant with its catalog sku (undefined when the sku is not in the catalog). */
export interface HandoffRow {
  variant: VariantFacts;
  sku: SkuFacts | undefined;
}

/** One row of the handoff-variant queries below (they all select the same columns). */
function handoffRow(r: {
  variant_id: number;
  store_slug: string;
  sku_id: number;
  product_id: number;
  price: number;
  quantity: number;
  sku_product_id: number | null;
  condition: string | null;
  language: string | null;
  finish: string | null;
}): HandoffRow {
  return {
    variant: { variantId: r.variant_id, storeSlug: r.store_slug, skuId: r.sku_id, productId: r.product_id, price: r.price, quantity: r.quantity },
    sku:
      r.sku_product_id === null
        ? undefined
        : { skuId: r.sku_id, productId: r.sku_product_id, condition: r.condition, language: r.language, finish: r.finish },
  };
}
const HANDOFF_COLUMNS = `v.variant_id, v.store_slug, v.sku_id, v.product_id, v.price, v.quantity,
            s.product_id AS sku_product_id, s.condition, s.language, s.finish`;

/** These handoff variants (those that exist) in variant_id order, each with its catalog sku. */
export async function handoffRows(db: Db, variantIds: number[]): Promise<HandoffRow[]> {
  if (variantIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT ${HANDOFF_COLUMNS}
       FROM handoff_variants v LEFT JOIN skus s ON s.sku_id = v.sku_id
      WHERE v.variant_id = ANY($1::int[])
      ORDER BY v.variant_id`,
    [variantIds],
  );
  return rows.map(handoffRow);
}

/**
 * Every handoff variant whose offer belongs to these products, with its catalog sku: the catalog
 * sku's product when the sku is known, else the variant's own product_id (as handoffOfferDoc
 * decides). The two branches are disjoint.
 */
export async function handoffRowsOfProducts(db: Db, productIds: number[]): Promise<HandoffRow[]> {
  if (productIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT ${HANDOFF_COLUMNS}
       FROM skus s JOIN handoff_variants v ON v.sku_id = s.sku_id
      WHERE s.product_id = ANY($1::int[])
     UNION ALL
     SELECT v.variant_id, v.store_slug, v.sku_id, v.product_id, v.price, v.quantity, NULL, NULL, NULL, NULL
       FROM handoff_variants v
      WHERE v.product_id = ANY($1::int[]) AND NOT EXISTS (SELECT 1 FROM skus s WHERE s.sku_id = v.sku_id)`,
    [productIds],
  );
  return rows.map(handoffRow);
}

/** The variants of handoffRowsOfProducts without their skus. */
export async function variantsOfProducts(db: Db, productIds: number[]): Promise<VariantFacts[]> {
  return (await handoffRowsOfProducts(db, productIds)).map((r) => r.variant);
}

export async function handoffStoreFacts(db: Db, slugs: string[]): Promise<Map<string, HandoffStoreFacts>> {
  if (slugs.length === 0) return new Map();
  const { rows } = await db.query(
    `SELECT h.store_slug, h.store_name, h.seller_code, h.active,
            coalesce(rv.sum, 0)::int AS review_sum, coalesce(rv.count, 0)::int AS review_count
       FROM handoff_stores h
       LEFT JOIN LATERAL (SELECT sum(score) AS sum, count(*) AS count FROM handoff_store_reviews WHERE store_slug = h.store_slug) rv ON true
      WHERE h.store_slug = ANY($1::text[])`,
    [slugs],
  );
  return new Map(
    rows.map((r) => [
      r.store_slug,
      {
        storeSlug: r.store_slug,
        storeName: displayText(r.store_name),
        sellerCode: r.seller_code,
        active: r.active,
        reviewSum: r.review_sum,
        reviewCount: r.review_count,
      },
    ]),
  );
}

export async function poBoxSuspended(db: Db): Promise<boolean> {
  const { rows } = await db.query(`SELECT po_box_suspended FROM platform_settings`);
  return rows[0]?.po_box_suspended ?? false;
}

// ---- fan-out: which documents a change touches ----

export interface Pair {
  sellerId: number;
  skuId: number;
}

/** Every listing (live or not) of these sellers: deleted ones must leave the index too. */
export async function pairsOfSellers(db: Db, sellerIds: number[]): Promise<Pair[]> {
  if (sellerIds.length === 0) return [];
  const { rows } = await db.query(`SELECT seller_id, sku_id FROM listings WHERE seller_id = ANY($1::int[])`, [sellerIds]);
  return rows.map((r) => ({ sellerId: r.seller_id, skuId: r.sku_id }));
}

/**
 * The listings an order touches: its lines' skus and its holds (a line cancelled to 0 or a
 * released hold may leave only one of the two). An order deleted since leaves none; the deletes
 * of its holds arrive as listing changes of their own.
 */
export async function pairsOfOrders(db: Db, orderIds: string[]): Promise<Pair[]> {
  if (orderIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT seller_id, sku_id FROM holds WHERE order_id = ANY($1::text[])
     UNION
     SELECT o.seller_id, ol.sku_id FROM order_lines ol JOIN orders o ON o.order_id = ol.order_id
      WHERE ol.order_id = ANY($1::text[])`,
    [orderIds],
  );
  return rows.map((r) => ({ sellerId: r.seller_id, skuId: r.sku_id }));
}

export async function pairsOfSkus(db: Db, skuIds: number[]): Promise<Pair[]> {
  if (skuIds.length === 0) return [];
  const { rows } = await db.query(`SELECT seller_id, sku_id FROM listings WHERE sku_id = ANY($1::int[])`, [skuIds]);
  return rows.map((r) => ({ sellerId: r.seller_id, skuId: r.sku_id }));
}

export async function skusOfProducts(db: Db, productIds: number[]): Promise<number[]> {
  if (productIds.length === 0) return [];
  const { rows } = await db.query(
    `SELECT sku_id FROM skus WHERE product_id = ANY($1::int[])
     UNION SELECT sku_id FROM listings WHERE product_id = ANY($1::int[])
     UNION SELECT sku_id FROM handoff_variants WHERE product_id = ANY($1::int[])`,
    [productIds],
  );
  return rows.map((r) => r.sku_id);
}

export async function variantsOf(db: Db, by: { slugs?: string[]; skuIds?: number[] }): Promise<number[]> {
  const { rows } = await db.query(`SELECT variant_id FROM handoff_variants WHERE store_slug = ANY($1::text[]) OR sku_id = ANY($2::int[])`, [
    by.slugs ?? [],
    by.skuIds ?? [],
  ]);
  return rows.map((r) => r.variant_id);
}

/** Keyset page over every listing, for full rebuilds and platform-wide changes. */
export async function pairsPage(db: Db, after: Pair | null, limit: number): Promise<Pair[]> {
  const { rows } = await db.query(
    `SELECT seller_id, sku_id FROM listings
      WHERE ($1::int IS NULL OR (seller_id, sku_id) > ($1::int, $2::int))
      ORDER BY seller_id, sku_id LIMIT $3`,
    [after?.sellerId ?? null, after?.skuId ?? null, limit],
  );
  return rows.map((r) => ({ sellerId: r.seller_id, skuId: r.sku_id }));
}

/** Keyset page over ids of a simple table, for full rebuilds. */
export async function idsPage(db: Db, table: 'products' | 'skus' | 'sellers' | 'handoff_variants', after: number, limit: number): Promise<number[]> {
  const column = { products: 'product_id', skus: 'sku_id', sellers: 'seller_id', handoff_variants: 'variant_id' }[table];
  const { rows } = await db.query(`SELECT ${column} AS id FROM ${table} WHERE ${column} > $1 ORDER BY ${column} LIMIT $2`, [after, limit]);
  return rows.map((r) => r.id);
}

/** At most how many documents a rebuild of the current data writes (every card counted, as if each product had one). */
export async function documentBound(db: Db): Promise<number> {
  const { rows } = await db.query(
    `SELECT (SELECT count(*) FROM listings) + (SELECT count(*) FROM handoff_variants) + (SELECT count(*) FROM products)
        + (SELECT count(*) FROM skus) + (SELECT count(*) FROM sellers)
        + (SELECT count(*) FROM products) /* cards: at most one per product */ AS total`,
  );
  return Number(rows[0].total);
}
