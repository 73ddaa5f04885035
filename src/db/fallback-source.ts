import type { PoolClient } from './pool.js';
import { AVAILABLE_SQL } from './offer-source.js';
import type { FacetName } from '../contract/buyer.js';
import { SEALED_CONDITION } from '../contract/policy.js';
import { displayText } from '../lib/display-text.js';

// Set-based source queries of the PostgreSQL fallback (Degraded Mode, src/search/pg-reads.ts).
// The product page and the cart lookup fetch the same facts the indexer does and build offers
// with the same pure document builders. Search aggregates in SQL over one relation of shown
// offers that mirrors, column for column, the fields nativeOfferDoc / handoffOfferDoc index.

type Db = PoolClient;

/**
 * Catalog products whose NFKD-decomposed name matches every pattern: a cheap superset filter for
 * keyword search (PostgreSQL cannot fold: no \p{M}); the caller checks the exact rule on the
 * folded name.
 */
export async function productsNamedLike(db: Db, patterns: string[]): Promise<{ productId: number; name: string }[]> {
  const { rows } = await db.query(
    `SELECT product_id, name FROM products
      WHERE name IS NOT NULL
        AND coalesce((SELECT bool_and(normalize(name, NFKD) ~ p) FROM unnest($1::text[]) AS p), true)`,
    [patterns],
  );
  return rows.map((r) => ({ productId: r.product_id, name: r.name }));
}

/**
 * The catalog's distinct names with their products (name order), at most `max` names: the
 * suggestion fallback keeps them in memory and matches them in code (PostgreSQL cannot fold, and
 * no pattern narrows a typo). More than `max` names: the first `max + 1`, so the caller sees the
 * bound was passed.
 */
export async function productsByName(db: Db, max: number): Promise<{ name: string; productIds: number[] }[]> {
  const { rows } = await db.query(
    `SELECT name, array_agg(product_id ORDER BY product_id) AS ids FROM products WHERE name IS NOT NULL GROUP BY name ORDER BY name LIMIT $1`,
    [max + 1],
  );
  return rows.map((r) => ({ name: r.name, productIds: r.ids }));
}

/** Search filters in SQL terms; null = not filtered. Keyword is resolved to product ids first. */
export interface SearchFilterParams {
  productIds: number[] | null;
  checkoutMode: 'express' | 'manual' | null;
  category: string | null;
  set: string | null;
  rarity: string | null;
  collectorNumber: string[] | null;
  condition: string[] | null;
  language: string[] | null;
  finish: string[] | null;
  sellerCode: string | null;
}

export interface ResultRow {
  productId: number;
  name: string | null;
  fromPrice: number;
  sellerCount: number;
  isSealed: boolean;
  hasNative: boolean;
}

export interface FacetRow {
  facet: FacetName;
  value: string;
  /** Store name, seller facet only. */
  storeName: string | null;
  count: number;
}

/**
 * Where shown offers are read from: every listing and variant, or relations holding every row
 * the filters could keep (CTEs the statement defines); and the browse-eligible sellers' query.
 */
interface OfferSources {
  listings: string;
  variants: string;
  eligible: string;
}
const EVERY_OFFER: OfferSources = {
  listings: 'listings',
  variants: 'handoff_variants',
  eligible: 'SELECT seller_id FROM seller_readiness WHERE cardinality(incomplete) = 0',
};

/**
 * Shown offers (DECISIONS.md "Browse gates and stock") with the fields the index stores on an
 * offer document. Native: live, matched, seller browse-eligible, available > 0. Handoff: store
 * active, quantity > 0; product and printing from the catalog sku when it exists.
 */
const shownOffersSql = (src: OfferSources) => `
  SELECT s.product_id, true AS native, 'n:' || l.seller_id AS store_key, se.seller_code, se.store_name,
         s.condition, s.language, s.finish, coalesce(s.condition = $11, false) AS is_sealed, l.price
    FROM ${src.listings} l
    JOIN skus s ON s.sku_id = l.sku_id
    JOIN sellers se ON se.seller_id = l.seller_id
   WHERE l.deleted_at IS NULL AND l.match_status = 'matched'
     AND l.seller_id IN (SELECT seller_id FROM eligible)
     AND ${AVAILABLE_SQL} > 0
     AND ($2::text IS NULL OR $2 = 'express')
     AND ($1::int[] IS NULL OR s.product_id = ANY($1))
  UNION ALL
  SELECT coalesce(s.product_id, v.product_id), false, 'h:' || v.store_slug, h.seller_code, h.store_name,
         s.condition, s.language, s.finish, coalesce(s.condition = $11, false), v.price
    FROM ${src.variants} v
    JOIN handoff_stores h ON h.store_slug = v.store_slug
    LEFT JOIN skus s ON s.sku_id = v.sku_id
   WHERE h.active AND v.quantity > 0
     AND ($2::text IS NULL OR $2 = 'manual')
     AND ($1::int[] IS NULL OR coalesce(s.product_id, v.product_id) = ANY($1))`;

/**
 * The shown offers with, per filter, whether the offer fails it (`miss_x`; a null field fails
 * every filter on it, as a missing keyword does): the CTEs `eligible`, `o` and `m` over the
 * parameters of SearchFilterParams in the order of filterParams().
 */
const missesCtes = (src: OfferSources) => `
    eligible AS MATERIALIZED (${src.eligible}),
    o AS (${shownOffersSql(src)}),
    m AS (
      SELECT o.*, p.category, p.set_name, p.rarity, p.collector_number,
             NOT coalesce($3::text IS NULL OR p.category = $3, false) AS miss_category,
             NOT coalesce($4::text IS NULL OR p.set_name = $4, false) AS miss_set,
             NOT coalesce($5::text IS NULL OR p.rarity = $5, false) AS miss_rarity,
             NOT coalesce($6::text[] IS NULL OR p.collector_number = ANY($6), false) AS miss_cn,
             NOT coalesce($7::text[] IS NULL OR o.condition = ANY($7), false) AS miss_condition,
             NOT coalesce($8::text[] IS NULL OR o.language = ANY($8), false) AS miss_language,
             NOT coalesce($9::text[] IS NULL OR o.finish = ANY($9), false) AS miss_finish,
             NOT coalesce($10::text IS NULL OR o.seller_code = $10, false) AS miss_seller
        FROM o LEFT JOIN products p ON p.product_id = o.product_id
    )`;

const filterParams = (f: SearchFilterParams) => [
  f.productIds,
  f.checkoutMode,
  f.category,
  f.set,
  f.rarity,
  f.collectorNumber,
  f.condition,
  f.language,
  f.finish,
  f.sellerCode,
  SEALED_CONDITION,
];

/**
 * The products /search lists for the filters (an offer passing every filter) among `productIds`,
 * with their names: searchAggregates' result products without its facets (suggestions count
 * names, not facets). The eligible sellers and the candidate variants are read first and given
 * as values: estimating the view's filter at one seller, the planner would otherwise walk every
 * eligible seller's listings and check their stock (1.5 million at the 2,000,000-listing sample)
 * instead of the products'. Run it in the caller's snapshot (its statements see the same data).
 */
export async function listedProducts(db: Db, f: SearchFilterParams & { productIds: number[] }): Promise<{ productId: number; name: string | null }[]> {
  const eligible = await db.query(EVERY_OFFER.eligible);
  // The variants too (a few hundred of 20,000): their sku's product is looked up one by one, not
  // by hashing all 750,000 skus for an estimated 10,000 variants.
  const variants = await db.query(
    `SELECT variant_id FROM handoff_variants
      WHERE product_id = ANY($1) OR sku_id IN (SELECT sku_id FROM skus WHERE product_id = ANY($1))`,
    [f.productIds],
  );
  const { rows } = await db.query(
    `WITH listings_of AS (SELECT * FROM listings WHERE sku_id IN (SELECT sku_id FROM skus WHERE product_id = ANY($1))),
     variants_of AS (SELECT * FROM handoff_variants WHERE variant_id = ANY($13::int[])),
     ${missesCtes({ listings: 'listings_of', variants: 'variants_of', eligible: 'SELECT seller_id FROM sellers WHERE seller_id = ANY($12::int[])' })}
     SELECT r.product_id, p.name
       FROM (SELECT DISTINCT product_id FROM m
              WHERE NOT (miss_category OR miss_set OR miss_rarity OR miss_cn OR miss_condition OR miss_language OR miss_finish OR miss_seller)) r
       JOIN products p ON p.product_id = r.product_id`,
    [...filterParams(f), eligible.rows.map((r) => r.seller_id), variants.rows.map((r) => r.variant_id)],
  );
  return rows.map((r) => ({ productId: r.product_id, name: r.name }));
}

/**
 * One statement: the result products (every filter) and each facet's distinct-product counts
 * (every filter but its own). An offer failing two or more filters counts nowhere, so only
 * offers with at most one miss are kept; a facet counts an offer with no miss, or whose only
 * miss is its own filter.
 */
export async function searchAggregates(db: Db, f: SearchFilterParams): Promise<{ results: ResultRow[]; facets: FacetRow[] }> {
  const facetBranch = (facet: FacetName, column: string, miss: string, nameColumn = 'NULL::text') =>
    `SELECT '${facet}' AS kind, NULL::int AS product_id, ${column} AS value, ${nameColumn} AS extra,
            count(DISTINCT product_id)::int AS n1, NULL::int AS n2, NULL::boolean AS b1, NULL::boolean AS b2
       FROM g WHERE ${column} IS NOT NULL AND misses - ${miss}::int = 0
      GROUP BY ${column}${nameColumn === 'NULL::text' ? '' : `, ${nameColumn}`}`;
  const sql = `
    WITH ${missesCtes(EVERY_OFFER)},
    g AS MATERIALIZED (
      SELECT * FROM (
        SELECT m.*, miss_category::int + miss_set::int + miss_rarity::int + miss_cn::int + miss_condition::int
                  + miss_language::int + miss_finish::int + miss_seller::int AS misses
          FROM m) x
       WHERE misses <= 1
    )
    SELECT 'result' AS kind, r.product_id, NULL::text AS value, p.name AS extra, r.n1, r.n2, r.b1, r.b2
      FROM (SELECT product_id, min(price)::int AS n1, count(DISTINCT store_key)::int AS n2,
                   bool_or(is_sealed) AS b1, bool_or(native) AS b2
              FROM g WHERE misses = 0 GROUP BY product_id) r
      LEFT JOIN products p ON p.product_id = r.product_id
    UNION ALL ${facetBranch('category', 'category', 'miss_category')}
    UNION ALL ${facetBranch('set', 'set_name', 'miss_set')}
    UNION ALL ${facetBranch('rarity', 'rarity', 'miss_rarity')}
    UNION ALL ${facetBranch('collectorNumber', 'collector_number', 'miss_cn')}
    UNION ALL ${facetBranch('condition', 'condition', 'miss_condition')}
    UNION ALL ${facetBranch('language', 'language', 'miss_language')}
    UNION ALL ${facetBranch('finish', 'finish', 'miss_finish')}
    UNION ALL ${facetBranch('seller', 'seller_code', 'miss_seller', 'store_name')}`;
  const { rows } = await db.query(sql, filterParams(f));
  const results: ResultRow[] = [];
  const facets: FacetRow[] = [];
  for (const r of rows) {
    if (r.kind === 'result') {
      results.push({ productId: r.product_id, name: r.extra, fromPrice: r.n1, sellerCount: r.n2, isSealed: r.b1, hasNative: r.b2 });
    } else {
      facets.push({ facet: r.kind, value: r.value, storeName: r.kind === 'seller' ? displayText(r.extra) : null, count: r.n1 });
    }
  }
  return { results, facets };
}
