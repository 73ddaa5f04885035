import type { PoolClient } from './pool.js';
import { copyRows, createStage, mapRows, timedCopy, type BulkCount } from './copy.js';
import { displayText, safeImageUrl } from '../lib/display-text.js';

// SQL of the canonical catalog: products and skus. Writes are set-based (unnest) and skip
// identical rows, so re-writing the same data fires no update trigger and adds no change feed row.

/** A product row: what the catalog writes take and the read model's source reads (offer-source.ts). */
export interface ProductFacts {
  productId: number;
  name: string | null;
  set: string | null;
  category: string | null;
  rarity: string | null;
  collectorNumber: string | null;
  imageUrl: string | null;
  details: { label: string; value: string }[];
}

/** A sku row, likewise. */
export interface SkuFacts {
  skuId: number;
  productId: number;
  condition: string | null;
  language: string | null;
  finish: string | null;
}

/** Which of these product ids exist. */
export async function findProductIds(c: PoolClient, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const { rows } = await c.query<{ id: number }>('SELECT product_id AS id FROM products WHERE product_id = ANY($1::int[])', [ids]);
  return new Set(rows.map((r) => r.id));
}

/** sku id -> catalog product id, for those of these skus that exist. */
export async function findSkuProducts(c: PoolClient, ids: readonly number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const { rows } = await c.query<{ sku: number; product: number }>('SELECT sku_id AS sku, product_id AS product FROM skus WHERE sku_id = ANY($1::int[])', [
    ids,
  ]);
  return new Map(rows.map((r) => [r.sku, r.product]));
}

const PRODUCT_COLUMNS = 'product_id, name, set_name, category, rarity, collector_number, image_url, details';

/** Upsert of products from a row source (unnest of parameters, or a staging table). */
const upsertProductsFrom = (source: string) => `
  INSERT INTO products AS t (${PRODUCT_COLUMNS})
  SELECT * FROM ${source}
  ON CONFLICT (product_id) DO UPDATE SET
    name = EXCLUDED.name, set_name = EXCLUDED.set_name, category = EXCLUDED.category, rarity = EXCLUDED.rarity,
    collector_number = EXCLUDED.collector_number, image_url = EXCLUDED.image_url, details = EXCLUDED.details
  WHERE (t.name, t.set_name, t.category, t.rarity, t.collector_number, t.image_url, t.details)
    IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.set_name, EXCLUDED.category, EXCLUDED.rarity,
                      EXCLUDED.collector_number, EXCLUDED.image_url, EXCLUDED.details)`;

/** Insert or update by product_id; returns the number of rows actually written. */
export async function upsertProducts(c: PoolClient, rows: readonly ProductFacts[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await c.query(upsertProductsFrom('unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[])'), [
    rows.map((r) => r.productId),
    rows.map((r) => displayText(r.name)),
    rows.map((r) => displayText(r.set)),
    rows.map((r) => r.category),
    rows.map((r) => r.rarity),
    rows.map((r) => r.collectorNumber),
    rows.map((r) => safeImageUrl(r.imageUrl)),
    rows.map((r) => JSON.stringify(r.details)),
  ]);
  return res.rowCount ?? 0;
}

/** Bulk form for millions of rows: COPY into a staging table, then one upsert. */
export async function bulkUpsertProducts(c: PoolClient, rows: Iterable<ProductFacts>, onRow?: () => void): Promise<BulkCount> {
  await createStage(
    c,
    'stage_products',
    'product_id int, name text, set_name text, category text, rarity text, collector_number text, image_url text, details jsonb',
  );
  const [copied, copyMs] = await timedCopy(() =>
    copyRows(
      c,
      'stage_products',
      PRODUCT_COLUMNS.split(', '),
      mapRows(rows, (r) => [
        r.productId,
        displayText(r.name),
        displayText(r.set),
        r.category,
        r.rarity,
        r.collectorNumber,
        safeImageUrl(r.imageUrl),
        JSON.stringify(r.details),
      ]),
      onRow,
    ),
  );
  const res = await c.query(upsertProductsFrom('stage_products'));
  return { copied, written: res.rowCount ?? 0, copyMs };
}

const upsertSkusFrom = (source: string) => `
  INSERT INTO skus AS t (sku_id, product_id, condition, language, finish)
  SELECT * FROM ${source}
  ON CONFLICT (sku_id) DO UPDATE SET
    product_id = EXCLUDED.product_id, condition = EXCLUDED.condition, language = EXCLUDED.language, finish = EXCLUDED.finish
  WHERE (t.product_id, t.condition, t.language, t.finish)
    IS DISTINCT FROM (EXCLUDED.product_id, EXCLUDED.condition, EXCLUDED.language, EXCLUDED.finish)`;

/** Insert or update by sku_id; returns the number of rows actually written. */
export async function upsertSkus(c: PoolClient, rows: readonly SkuFacts[]): Promise<number> {
  if (rows.length === 0) return 0;
  const res = await c.query(upsertSkusFrom('unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[])'), [
    rows.map((r) => r.skuId),
    rows.map((r) => r.productId),
    rows.map((r) => r.condition),
    rows.map((r) => r.language),
    rows.map((r) => r.finish),
  ]);
  return res.rowCount ?? 0;
}

export async function bulkUpsertSkus(c: PoolClient, rows: Iterable<SkuFacts>, onRow?: () => void): Promise<BulkCount> {
  await createStage(c, 'stage_skus', 'sku_id int, product_id int, condition text, language text, finish text');
  const [copied, copyMs] = await timedCopy(() =>
    copyRows(
      c,
      'stage_skus',
      ['sku_id', 'product_id', 'condition', 'language', 'finish'],
      mapRows(rows, (r) => [r.skuId, r.productId, r.condition, r.language, r.finish]),
      onRow,
    ),
  );
  const res = await c.query(upsertSkusFrom('stage_skus'));
  return { copied, written: res.rowCount ?? 0, copyMs };
}
