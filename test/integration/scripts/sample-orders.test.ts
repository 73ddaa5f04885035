import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { pollPage } from '../../../src/orders/service.js';
import { entryArgs } from '../../support/entry-points.js';

// `npm run sample -- --orders M` against real PostgreSQL: orders pass checkout's rules, re-running
// changes nothing, and the --out document gives the same orders through `npm run fixture:load`.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);
const ARGS = ['--listings', '2000', '--seed', '11', '--orders', '300'];

const script = (ctx: TestContext, name: 'sample.ts' | 'fixture-load.ts', ...args: string[]) =>
  run(process.execPath, [...entryArgs(`scripts/${name}`), ...args], { cwd: root, env: { ...process.env, DATABASE_URL: ctx.databaseUrl } });

/** Everything an order run leaves behind, in a comparable form. */
async function snapshot(ctx: TestContext) {
  const q = async (sql: string) => (await ctx.pool.query(sql)).rows;
  return {
    orders: await q(
      `SELECT order_id, seller_id, status, has_money, subtotal, grand_total, tracking_number, updated_at, change_xid, change_seq FROM orders ORDER BY order_id`,
    ),
    lines: await q(`SELECT order_id, sku_id, quantity, ordered_quantity, unit_price FROM order_lines ORDER BY order_id, sku_id`),
    holds: await q(`SELECT order_id, sku_id, quantity FROM holds ORDER BY order_id, sku_id`),
    events: await q(`SELECT event_id, type FROM webhook_events ORDER BY event_id`),
    changeFeed: (await q(`SELECT count(*)::int AS n FROM change_feed`))[0].n as number,
  };
}

/** The orders as entered (moves aside): ids, sellers, skus and units ordered, frozen prices. */
const entered = async (ctx: TestContext) =>
  (
    await ctx.pool.query(`SELECT o.order_id, o.seller_id, o.has_money, o.shipping_method, o.tax_rates, l.sku_id, l.ordered_quantity, l.unit_price
                           FROM orders o JOIN order_lines l USING (order_id) ORDER BY o.order_id, l.sku_id`)
  ).rows;

describe('sample --load --orders', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('enters M orders that satisfy checkout, moves some into every status, and a re-run changes nothing', async () => {
    const first = await script(ctx, 'sample.ts', ...ARGS, '--load');
    expect(first.stderr).toMatch(/orders: 300 rows \(300 written\)/);
    const once = await snapshot(ctx);
    expect(once.orders).toHaveLength(300);

    // Every status the API can reach, and line cancels (status kept, fewer units).
    const statuses = new Set(once.orders.map((o) => o.status));
    expect(statuses).toEqual(new Set(['created', 'accepted', 'shipped', 'delivered', 'cancelled']));
    expect(once.lines.some((l) => l.quantity < l.ordered_quantity)).toBe(true);
    expect(once.orders.some((o) => !o.has_money)).toBe(true);

    // Checkout's rules, checked against the tables: each line a shown offer of a browse-eligible
    // seller at its listed price, and no sku ordered beyond its listed quantity over all orders.
    const { rows: offers } = await ctx.pool.query(
      `SELECT o.order_id, l.sku_id, l.unit_price, x.price, x.deleted_at IS NULL AS live, x.match_status, r.incomplete
         FROM order_lines l JOIN orders o USING (order_id)
         LEFT JOIN listings x ON x.seller_id = o.seller_id AND x.sku_id = l.sku_id
         JOIN seller_readiness r ON r.seller_id = o.seller_id`,
    );
    for (const r of offers) {
      expect(r, `${r.order_id} ${r.sku_id}`).toMatchObject({ live: true, match_status: 'matched', incomplete: [], price: r.unit_price });
    }
    const { rows: oversold } = await ctx.pool.query(
      `SELECT o.seller_id, l.sku_id, sum(l.ordered_quantity) AS ordered, min(x.quantity) AS listed
         FROM order_lines l JOIN orders o USING (order_id) JOIN listings x ON x.seller_id = o.seller_id AND x.sku_id = l.sku_id
        GROUP BY 1, 2 HAVING sum(l.ordered_quantity) > min(x.quantity)`,
    );
    expect(oversold).toEqual([]);
    // Holds: one per line of an order still holding (created/accepted), at the line's units left.
    const { rows: holdCheck } = await ctx.pool.query(
      `SELECT count(*)::int AS n FROM order_lines l JOIN orders o USING (order_id)
        WHERE o.status IN ('created', 'accepted') AND l.quantity > 0
          AND NOT EXISTS (SELECT 1 FROM holds h WHERE h.order_id = l.order_id AND h.sku_id = l.sku_id AND h.quantity = l.quantity)`,
    );
    expect(holdCheck[0].n).toBe(0);
    // Shipped with tracking exactly where the frozen option is tracked.
    const { rows: tracking } = await ctx.pool.query(
      `SELECT order_id, shipping_tracked, tracking_number FROM orders
        WHERE status IN ('shipped', 'delivered') AND shipping_tracked IS NOT NULL AND shipping_tracked <> (tracking_number IS NOT NULL)`,
    );
    expect(tracking).toEqual([]);

    // The seller API's poll shows them (seller 1 is always a healthy shop).
    const page = await pollPage(ctx.pool, 1, { after: null, since: null, limit: 1000 });
    expect(page.items.length).toBe(once.orders.filter((o) => o.seller_id === 1).length);
    expect(page.items.length).toBeGreaterThan(0);

    const again = await script(ctx, 'sample.ts', ...ARGS, '--load');
    expect(again.stderr).toMatch(/orders: 300 rows \(0 written\)/);
    expect(await snapshot(ctx)).toEqual(once);
  });

  it('--out writes the same orders: fixture:load enters them into an empty database', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'sample-orders-')), 'sample.json');
    await script(ctx, 'sample.ts', ...ARGS, '--out', file);
    const other = await createTestContext();
    try {
      const loaded = await script(other, 'fixture-load.ts', file);
      expect(loaded.stdout + loaded.stderr).toMatch(/orders/);
      expect(await entered(other)).toEqual(await entered(ctx));
      // Loading the document again changes nothing either.
      const before = await snapshot(other);
      await script(other, 'fixture-load.ts', file);
      expect(await snapshot(other)).toEqual(before);
    } finally {
      await other.close();
    }
  });
});
