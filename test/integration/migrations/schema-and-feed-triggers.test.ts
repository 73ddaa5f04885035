import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { migrateUp } from '../../../src/db/migrate.js';
import { createTestContext, type TestContext } from '../../support/context.js';
import { databaseUrlFor } from '../../support/db-url.js';

const EXPECTED_TABLES = [
  'platform_settings',
  'sellers',
  'seller_prerequisites',
  'seller_shipping_options',
  'seller_reviews',
  'api_keys',
  'seller_webhooks',
  'products',
  'skus',
  'listings',
  'orders',
  'holds',
  'handoff_stores',
  'handoff_store_reviews',
  'handoff_variants',
  'change_feed',
  'feed_checkpoints',
  'pgmigrations',
];

/** Tables, columns, triggers and applied migrations: what a repeated migrate must not change. */
async function schemaSnapshot(url: string) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const q = async (sql: string) => (await c.query(sql)).rows;
    return {
      columns: await q(`SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
                         WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`),
      triggers: await q(`SELECT event_object_table, trigger_name, event_manipulation FROM information_schema.triggers
                          ORDER BY 1, 2, 3`),
      migrations: await q('SELECT name FROM pgmigrations ORDER BY id'),
    };
  } finally {
    await c.end();
  }
}

describe('migrations', () => {
  let url: string;
  beforeAll(async () => {
    // A database that never saw a migration (not a clone of the run's template); named after the
    // run so global teardown drops it.
    const server = inject('databaseUrl');
    const name = `${inject('runId')}_mig_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    url = databaseUrlFor(server, name);
  });

  it('a fresh database migrates up with every expected table and the readiness view', async () => {
    await migrateUp(url);
    const snap = await schemaSnapshot(url);
    const tables = new Set(snap.columns.map((r) => r.table_name as string));
    for (const t of EXPECTED_TABLES) expect(tables, t).toContain(t);
    expect(tables).toContain('seller_readiness');
    expect(snap.migrations.length).toBeGreaterThanOrEqual(2);
  });

  it('re-running migrate is a no-op', async () => {
    const before = await schemaSnapshot(url);
    await migrateUp(url);
    expect(await schemaSnapshot(url)).toEqual(before);
  });
});

describe('change feed triggers', () => {
  let ctx: TestContext;
  let last = 0;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  /** Runs SQL, returns the feed rows it produced (entity, k1, k2, ktext), sorted. */
  async function feedOf(sql: string, params: unknown[] = []) {
    await ctx.pool.query(sql, params);
    const { rows } = await ctx.pool.query<{ id: number; entity: string; k1: number | null; k2: number | null; ktext: string | null }>(
      'SELECT id, entity, k1, k2, ktext FROM change_feed WHERE id > $1 ORDER BY entity, k1, k2, ktext',
      [last],
    );
    last = Math.max(last, ...rows.map((r) => r.id));
    return rows.map(({ entity, k1, k2, ktext }) => ({ entity, k1, k2, ktext }));
  }
  const key = (entity: string, k1: number | null, k2: number | null = null, ktext: string | null = null) => ({ entity, k1, k2, ktext });

  it('products and skus', async () => {
    expect(await feedOf("INSERT INTO products (product_id, name) VALUES (1, 'A'), (2, 'B')")).toEqual([key('product', 1), key('product', 2)]);
    expect(await feedOf("UPDATE products SET name = 'A2' WHERE product_id = 1")).toEqual([key('product', 1)]);
    expect(await feedOf('INSERT INTO skus (sku_id, product_id) VALUES (10, 1)')).toEqual([key('sku', 10)]);
    expect(await feedOf('UPDATE skus SET condition = $1 WHERE sku_id = 10', ['Near Mint'])).toEqual([key('sku', 10)]);
  });

  it('sellers (and their child rows, keyed by seller)', async () => {
    expect(await feedOf("INSERT INTO sellers (seller_id, seller_code, store_name, currency, region) VALUES (7, 'maple', 'Maple', 'CAD', 'CA')")).toEqual([
      key('seller', 7),
    ]);
    expect(await feedOf('UPDATE sellers SET vacation = true WHERE seller_id = 7')).toEqual([key('seller', 7)]);
    // A review changes only the seller's counters (the seller document), not its offers.
    expect(await feedOf('INSERT INTO seller_reviews VALUES (7, 0, 5)')).toEqual([key('seller', 7, null, 'stats')]);
    expect(await feedOf('DELETE FROM seller_reviews WHERE seller_id = 7')).toEqual([key('seller', 7, null, 'stats')]);
    expect(await feedOf("INSERT INTO seller_prerequisites VALUES (7, 'PAYOUTS_READY')")).toEqual([key('seller', 7)]);
    expect(await feedOf('DELETE FROM seller_prerequisites WHERE seller_id = 7')).toEqual([key('seller', 7)]);
  });

  it('listings: insert, update, delete keyed by (seller, sku)', async () => {
    expect(
      await feedOf("INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES (7, 10, 1, 100, 2, 'matched')"),
    ).toEqual([key('listing', 7, 10)]);
    expect(await feedOf('UPDATE listings SET quantity = 3 WHERE seller_id = 7')).toEqual([key('listing', 7, 10)]);
    expect(await feedOf('DELETE FROM listings WHERE seller_id = 7 AND sku_id = 10')).toEqual([key('listing', 7, 10)]);
  });

  it('a listing update that changes its offer and no card (price, reference) is marked offer-only; stock, deletion, match and key moves are not', async () => {
    /** Runs SQL, returns its listing rows as `seller:sku` -> offer_only. */
    async function offerOnly(sql: string): Promise<Record<string, boolean>> {
      await ctx.pool.query(sql);
      const { rows } = await ctx.pool.query<{ id: number; k1: number; k2: number; offer_only: boolean }>(
        `SELECT id, k1, k2, offer_only FROM change_feed WHERE id > $1 AND entity = 'listing'`,
        [last],
      );
      const { rows: max } = await ctx.pool.query<{ id: number | null }>('SELECT max(id)::int AS id FROM change_feed');
      last = max[0]!.id ?? last;
      return Object.fromEntries(rows.map((r) => [`${r.k1}:${r.k2}`, r.offer_only]));
    }
    expect(
      await offerOnly(`INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status)
                       VALUES (7, 20, 1, 100, 2, 'matched'), (7, 21, 1, 100, 2, 'matched'), (7, 22, 1, 100, 0, 'matched')`),
    ).toEqual({ '7:20': false, '7:21': false, '7:22': false });
    expect(await offerOnly(`UPDATE listings SET price = price + 1, external_ref = 'r', as_of = now() WHERE seller_id = 7 AND sku_id >= 20`)).toEqual({
      '7:20': true,
      '7:21': true,
      '7:22': true,
    });
    // One statement, each row on its own: the repriced one stays offer-only.
    expect(await offerOnly(`UPDATE listings SET price = 90, quantity = CASE sku_id WHEN 21 THEN 0 ELSE quantity END WHERE seller_id = 7 AND sku_id IN (20, 21)`)).toEqual({
      '7:20': true,
      '7:21': false,
    });
    expect(await offerOnly(`UPDATE listings SET match_status = 'unmatched' WHERE seller_id = 7 AND sku_id = 20`)).toEqual({ '7:20': false });
    expect(await offerOnly(`UPDATE listings SET deleted_at = now() WHERE seller_id = 7 AND sku_id = 20`)).toEqual({ '7:20': false });
    expect(await offerOnly(`UPDATE listings SET product_id = 2 WHERE seller_id = 7 AND sku_id = 21`)).toEqual({ '7:21': false });
    expect(await offerOnly(`UPDATE listings SET sku_id = 23 WHERE seller_id = 7 AND sku_id = 22`)).toEqual({ '7:22': false, '7:23': false });
    expect(await offerOnly(`DELETE FROM listings WHERE seller_id = 7 AND sku_id >= 20`)).toEqual({ '7:20': false, '7:21': false, '7:23': false });
  });

  it('holds are keyed like the listing they reserve', async () => {
    await feedOf("INSERT INTO orders (order_id, seller_id) VALUES ('ord_1', 7)");
    expect(await feedOf("INSERT INTO holds VALUES ('ord_1', 7, 10, 1)")).toEqual([key('listing', 7, 10)]);
    expect(await feedOf("UPDATE holds SET quantity = 2 WHERE order_id = 'ord_1'")).toEqual([key('listing', 7, 10)]);
    expect(await feedOf("DELETE FROM holds WHERE order_id = 'ord_1'")).toEqual([key('listing', 7, 10)]);
  });

  it('a handoff variant update that keeps its store, sku, product, stock and match is marked offer-only', async () => {
    await ctx.pool.query("INSERT INTO handoff_stores (store_slug, store_name) VALUES ('west-shop', 'West') ON CONFLICT DO NOTHING");
    await ctx.pool.query("INSERT INTO handoff_variants VALUES (60, 'west-shop', 10, 1, 240, 1, 'matched'), (61, 'west-shop', 10, 1, 240, 1, 'matched')");
    const marks = async (sql: string): Promise<Record<string, boolean>> => {
      const { rows: max } = await ctx.pool.query<{ id: number }>('SELECT coalesce(max(id), 0)::int AS id FROM change_feed');
      await ctx.pool.query(sql);
      const { rows } = await ctx.pool.query<{ k1: number; offer_only: boolean }>(
        `SELECT k1, offer_only FROM change_feed WHERE id > $1 AND entity = 'variant'`,
        [max[0]!.id],
      );
      return Object.fromEntries(rows.map((r) => [String(r.k1), r.offer_only]));
    };
    expect(await marks('UPDATE handoff_variants SET price = price + 5 WHERE variant_id IN (60, 61)')).toEqual({ '60': true, '61': true });
    expect(await marks('UPDATE handoff_variants SET price = 1, quantity = CASE variant_id WHEN 61 THEN 0 ELSE quantity END WHERE variant_id IN (60, 61)')).toEqual({
      '60': true,
      '61': false,
    });
    expect(await marks('UPDATE handoff_variants SET sku_id = 11 WHERE variant_id = 60')).toEqual({ '60': false });
    expect(await marks("UPDATE handoff_variants SET match_status = 'unmatched' WHERE variant_id = 61")).toEqual({ '61': false });
    expect(await marks('DELETE FROM handoff_variants WHERE variant_id IN (60, 61)')).toEqual({ '60': false, '61': false });
    last = (await ctx.pool.query<{ id: number }>('SELECT max(id)::int AS id FROM change_feed')).rows[0]!.id;
  });

  it('handoff stores and variants', async () => {
    expect(await feedOf("INSERT INTO handoff_stores (store_slug, store_name) VALUES ('north-shop', 'North')")).toEqual([
      key('store', null, null, 'north-shop'),
    ]);
    expect(await feedOf("INSERT INTO handoff_variants VALUES (55, 'north-shop', 10, 1, 240, 1, 'matched')")).toEqual([key('variant', 55)]);
    expect(await feedOf('UPDATE handoff_variants SET price = 230 WHERE variant_id = 55')).toEqual([key('variant', 55)]);
    expect(await feedOf('DELETE FROM handoff_variants WHERE variant_id = 55')).toEqual([key('variant', 55)]);
  });

  it('a statement that changes no row writes no feed row', async () => {
    expect(await feedOf('UPDATE listings SET quantity = 0 WHERE false')).toEqual([]);
    expect(await feedOf('DELETE FROM products WHERE product_id = 999')).toEqual([]);
  });

  it('deleting a sku unmatches, inserting it rematches, its listings (with feed rows)', async () => {
    await feedOf("INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES (7, 10, 1, 100, 2, 'matched')");
    expect(await feedOf('DELETE FROM skus WHERE sku_id = 10')).toEqual([key('listing', 7, 10), key('sku', 10)]);
    expect((await ctx.pool.query('SELECT match_status FROM listings')).rows).toEqual([{ match_status: 'unmatched' }]);
    expect(await feedOf('INSERT INTO skus (sku_id, product_id) VALUES (10, 1)')).toEqual([key('listing', 7, 10), key('sku', 10)]);
    expect((await ctx.pool.query('SELECT match_status FROM listings')).rows).toEqual([{ match_status: 'matched' }]);
  });
});
