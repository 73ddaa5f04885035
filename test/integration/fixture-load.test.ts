import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/context.js';
import { loadFixture } from '../../src/fixtures/load.js';
import { FixtureError } from '../../src/fixtures/errors.js';
import { derivedOrderId } from '../../src/fixtures/load.js';
import { parseFixture } from '../../src/fixtures/parse.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const examplePath = path.join(root, 'test/fixtures/example.json');
const example = () => JSON.parse(readFileSync(examplePath, 'utf8')) as Record<string, any>;
const run = promisify(execFile);

const DATA_TABLES = [
  'products',
  'skus',
  'sellers',
  'seller_prerequisites',
  'seller_shipping_options',
  'seller_reviews',
  'api_keys',
  'seller_webhooks',
  'listings',
  'handoff_stores',
  'handoff_store_reviews',
  'handoff_variants',
  'orders',
  'holds',
  'order_lines',
  'webhook_events',
] as const;

/** Every row of every table the loader touches, as JSON text, in a stable order. */
async function dump(ctx: TestContext): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of [...DATA_TABLES, 'platform_settings', 'change_feed']) {
    const { rows } = await ctx.pool.query<{ j: string }>(`SELECT row_to_json(t)::text AS j FROM ${t} t ORDER BY 1`);
    out[t] = rows.map((r) => r.j);
  }
  return out;
}

async function counts(ctx: TestContext): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of [...DATA_TABLES, 'change_feed']) {
    const { rows } = await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`);
    out[t] = rows[0]!.n;
  }
  return out;
}

const empty = Object.fromEntries([...DATA_TABLES, 'change_feed'].map((t) => [t, 0]));

describe('fixture loader against PostgreSQL', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('refuses a file with one bad field as a whole: nothing written, the path named', async () => {
    const bad = example();
    bad.listings[0].price = -1;
    await expect(loadFixture(ctx.pool, bad)).rejects.toThrow('listings[0].price: expected integer >= 0');
    expect(await counts(ctx)).toEqual(empty);
    // A cross-document failure after the catalog would already be valid is refused the same way.
    const contradicts = example();
    contradicts.handoffStores[0].variants[0].productId = 999;
    const err = await loadFixture(ctx.pool, contradicts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).path).toBe('handoffStores[0].variants[0].productId');
    expect(await counts(ctx)).toEqual(empty);
  });

  it('loads example.json: every table, keys hashed, listing matched and live', async () => {
    const { counts: c } = await loadFixture(ctx.pool, example());
    expect(c.listings).toEqual({ inFile: 1, written: 1, deleted: 0 });
    expect(await counts(ctx)).toMatchObject({
      products: 1,
      skus: 1,
      sellers: 1,
      seller_shipping_options: 1,
      seller_reviews: 3,
      api_keys: 1,
      seller_webhooks: 1,
      listings: 1,
      handoff_stores: 1,
      handoff_store_reviews: 1,
      handoff_variants: 1,
      orders: 0,
    });
    const { rows: listing } = await ctx.pool.query('SELECT match_status, deleted_at, external_ref, as_of FROM listings');
    expect(listing[0]).toMatchObject({ match_status: 'matched', deleted_at: null, external_ref: 'SKU-A-1' });
    expect((listing[0].as_of as Date).toISOString()).toBe('2026-11-01T00:00:00.000Z');
    const key = 'mp_maple_4f9c2a7d0b1e8f3a6c5d9e2b7a1f0c4d';
    const { rows: keys } = await ctx.pool.query<{ h: string; row: string }>(
      "SELECT encode(key_hash, 'hex') AS h, row_to_json(k)::text AS row FROM api_keys k",
    );
    expect(keys[0]!.h).toBe(createHash('sha256').update(key).digest('hex'));
    expect(keys[0]!.row).not.toContain('4f9c2a7d0b1e8f3a6c5d9e2b7a1f0c4d');
    const { rows: ready } = await ctx.pool.query('SELECT incomplete FROM seller_readiness WHERE seller_id = 7');
    expect(ready[0].incomplete).toEqual([]);
  });

  it('loading the same file again changes nothing: identical tables, no change feed row', async () => {
    const before = await dump(ctx);
    const { counts: c } = await loadFixture(ctx.pool, example());
    expect(Object.values(c).every((t) => t.written === 0 && t.deleted === 0)).toBe(true);
    expect(await dump(ctx)).toEqual(before);
  });

  it('replaces child lists with the file, touching only what differs', async () => {
    const feedBefore = (await counts(ctx)).change_feed;
    const next = example();
    next.sellers[0].reviews = [5, 2];
    next.sellers[0].shippingOptions = [{ method: 'Lettermail', cost: 199, tracked: false }];
    next.sellers[0].apiKeys = [];
    next.sellers[0].incompletePrerequisites = ['PAYOUTS_READY'];
    next.sellers[0].termsVersion = null;
    delete next.sellers[0].webhook;
    next.handoffStores[0].variants = [{ variantId: 56, skuId: 1001, productId: 101, price: 230, quantity: 2 }];
    await loadFixture(ctx.pool, next);
    const q = async (sql: string) => (await ctx.pool.query(sql)).rows;
    expect(await q('SELECT position, score FROM seller_reviews ORDER BY position')).toEqual([
      { position: 0, score: 5 },
      { position: 1, score: 2 },
    ]);
    expect(await q('SELECT method FROM seller_shipping_options')).toEqual([{ method: 'Lettermail' }]);
    expect(await q('SELECT * FROM api_keys')).toEqual([]);
    expect(await q('SELECT * FROM seller_webhooks')).toEqual([]);
    expect(await q('SELECT variant_id FROM handoff_variants')).toEqual([{ variant_id: 56 }]);
    expect(await q('SELECT incomplete FROM seller_readiness')).toEqual([{ incomplete: ['PAYOUTS_READY', 'CURRENT_SELLER_TERMS_ACCEPTED'] }]);
    // Unchanged review position 0 was not rewritten: only changed entities reached the feed.
    // (A review changes only the seller's counters: its feed row says so with ktext 'stats'.)
    const { rows: feed } = await ctx.pool.query('SELECT DISTINCT entity, k1, ktext FROM change_feed WHERE id > $1 ORDER BY 1, 2, 3 NULLS FIRST', [
      feedBefore,
    ]);
    expect(feed).toEqual([
      { entity: 'seller', k1: 7, ktext: null },
      { entity: 'seller', k1: 7, ktext: 'stats' },
      { entity: 'variant', k1: 55, ktext: null },
      { entity: 'variant', k1: 56, ktext: null },
    ]);
  });

  it('stores a listing of an unknown sku unmatched, and matches it when the sku arrives', async () => {
    await loadFixture(ctx.pool, { listings: [{ sellerId: 7, skuId: 2002, productId: 202, price: 100, quantity: 1 }] });
    const status = async () => (await ctx.pool.query('SELECT match_status FROM listings WHERE sku_id = 2002')).rows[0]?.match_status;
    expect(await status()).toBe('unmatched');
    await loadFixture(ctx.pool, { products: [{ productId: 202, name: 'Æther Vial' }], skus: [{ skuId: 2002, productId: 202, condition: 'Near Mint' }] });
    expect(await status()).toBe('matched');
    // The database's catalog now backs the cross-document rules.
    await expect(loadFixture(ctx.pool, { listings: [{ sellerId: 7, skuId: 2002, productId: 101, price: 1, quantity: 1 }] })).rejects.toThrow(
      'listings[0].productId: sku 2002 belongs to product 202, not 101',
    );
  });
  it('enters orders through the checkout path: a bad order refuses the file by path; derived ids; a reload changes nothing', async () => {
    await loadFixture(ctx.pool, example()); // seller 7 browse-eligible again, sku 1001: 4 on hand at 250
    const customer = {
      name: 'A. Buyer',
      email: 'a@example.com',
      shipping_address: { line1: '1 Main St', line2: null, city: 'Halifax', province: 'NS', postal_code: 'B3H 1A1', country: 'CA' },
    };
    const file = (): Record<string, any> => ({
      ...example(),
      orders: [
        {
          sellerId: 7,
          currency: 'CAD',
          customer,
          lines: [{ skuId: 1001, quantity: 3 }],
          shippingMethod: 'Tracked Expedited',
          tax: [{ label: 'HST', rate: 0.15 }],
        },
        { orderId: 'ord_operator', sellerId: 7, currency: 'CAD', customer, lines: [{ skuId: 1001, quantity: 1 }], operator: true },
      ],
    });
    const before = await counts(ctx);
    const refused = async (f: Record<string, any>) => {
      const err = await loadFixture(ctx.pool, f).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FixtureError);
      expect(await counts(ctx)).toEqual(before);
      return (err as FixtureError).message;
    };
    // The second order wants 2 of the 1 unit the first leaves: stock counts earlier orders of the file.
    const tooMany = file();
    tooMany.orders[1]!.lines[0].quantity = 2;
    expect(await refused(tooMany)).toBe('orders[1].lines[0].quantity: 2 requested, 1 available for sku 1001');
    const unlisted = file();
    unlisted.orders[0]!.lines.push({ skuId: 3003, quantity: 1 });
    expect(await refused(unlisted)).toBe('orders[0].lines[1].skuId: sku 3003 is not a shown offer of seller 7: no listing');
    const currency = file();
    currency.orders[0]!.currency = 'USD';
    expect(await refused(currency)).toBe("orders[0].currency: expected the seller's currency CAD, got USD");
    const method = file();
    method.orders[0]!.shippingMethod = 'Pigeon';
    expect(await refused(method)).toBe('orders[0].shippingMethod: "Pigeon" is not a shipping option of seller 7');
    const vacation = file();
    vacation.sellers[0].vacation = true;
    expect(await refused(vacation)).toMatch(
      /^orders\[0\]\.lines\[0\]\.skuId: sku 1001 is not a shown offer of seller 7: the store is not browse-eligible \(VACATION_DISABLED\)$/,
    );

    const { counts: c } = await loadFixture(ctx.pool, file());
    expect(c.orders).toEqual({ inFile: 2, written: 2, deleted: 0 });
    const id = derivedOrderId(parseFixture(file()).orders![0]!, 0);
    const { rows } = await ctx.pool.query('SELECT order_id, has_money, subtotal, shipping_cost, tax, grand_total FROM orders ORDER BY order_id');
    expect(rows).toEqual(
      [
        { order_id: id, has_money: true, subtotal: 750, shipping_cost: 1299, tax: 307, grand_total: 2356 }, // 0.15 x 2049 = 307.35
        { order_id: 'ord_operator', has_money: false, subtotal: null, shipping_cost: null, tax: null, grand_total: null },
      ].sort((a, b) => (a.order_id < b.order_id ? -1 : 1)),
    );
    expect((await ctx.pool.query('SELECT order_id, sku_id, quantity FROM holds ORDER BY quantity')).rows).toEqual([
      { order_id: 'ord_operator', sku_id: 1001, quantity: 1 },
      { order_id: id, sku_id: 1001, quantity: 3 },
    ]);
    expect((await ctx.pool.query('SELECT type, state FROM webhook_events')).rows).toEqual([
      { type: 'order.created', state: 'pending' },
      { type: 'order.created', state: 'pending' },
    ]);

    const dumped = await dump(ctx);
    const again = await loadFixture(ctx.pool, file());
    expect(again.counts.orders).toEqual({ inFile: 2, written: 0, deleted: 0 });
    expect(await dump(ctx)).toEqual(dumped);
  });
});

describe('fixture-load CLI', () => {
  let ctx: TestContext;
  let dir: string;
  beforeAll(async () => {
    ctx = await createTestContext();
    dir = mkdtempSync(path.join(tmpdir(), 'fixture-cli-'));
  });
  afterAll(async () => {
    await ctx.close();
  });

  const cli = (file: string) =>
    run(path.join(root, 'node_modules/.bin/tsx'), [path.join(root, 'scripts/fixture-load.ts'), file], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: ctx.databaseUrl },
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, stdout: err.stdout, stderr: err.stderr }),
    );

  it('exits non-zero with the bad path on stderr, and writes nothing', async () => {
    const bad = example();
    bad.listings[0].quantity = -3;
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(bad));
    const r = await cli(file);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('listings[0].quantity: expected integer >= 0');
    expect(await counts(ctx)).toEqual(empty);
  });

  it('exits non-zero on malformed JSON', async () => {
    const file = path.join(dir, 'broken.json');
    writeFileSync(file, '{"products": [');
    const r = await cli(file);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('invalid JSON');
  });

  it('exits 0 for a good file and prints a summary', async () => {
    const r = await cli(examplePath);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/loaded .*example\.json in \d+ ms/);
    expect(r.stdout).toMatch(/listings\s+1 in file\s+1 written/);
    expect((await counts(ctx)).listings).toBe(1);
  });
});
