// Orders benchmark (npm run bench:orders -- [--entries 20000] [--concurrency 8] [--sellers 32] [--walk 100000] [--limit 1000] [--keep]).
//
// Creates its own database on the server DATABASE_URL names, migrates it and seeds a catalog of
// 2,000 skus, `sellers` browse-eligible sellers listing every sku (stock large enough never to run
// out) and one more seller for the poll walk. Two measurements:
//   entry - `entries` orders of 1 to 5 lines (random skus of a random seller) through the checkout
//           function (checkoutOrder, one transaction each: BEGIN with the seller lock, facts, one
//           insert of order, lines, holds and outbox row, COMMIT), `concurrency` in flight;
//   walk  - `walk` orders of the walk seller (inserted in bulk with SQL, 1 to 5 lines each, the
//           columns entry writes), then a full poll walk over real HTTP: GET /orders?limit=N
//           following nextCursor to null, pages in sequence as a Platform reads them.
// Prints orders/s with the machine's load average. The database is dropped unless --keep.
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { migrateUp } from '../src/db/migrate.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { createApp } from '../src/api/app.js';
import { sellerRoutes } from '../src/api/routes/seller/index.js';
import { issueApiKey } from '../src/db/api-keys.js';
import { checkoutOrder } from '../src/orders/checkout.js';
import { createServices } from '../src/services.js';
import { admin, load, pct } from './world.js';
import { seedWalkOrders } from './walk-orders.js';

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '8' },
    sellers: { type: 'string', default: '32' },
    walk: { type: 'string', default: '100000' },
    limit: { type: 'string', default: '1000' },
    keep: { type: 'boolean', default: false },
  },
});
const ENTRIES = Number(values.entries);
const CONCURRENCY = Number(values.concurrency);
const SELLERS = Number(values.sellers);
const WALK = Number(values.walk);
const LIMIT = Number(values.limit);
const SKUS = 2000;
const WALK_SELLER = 1000;

const base = loadEnv();
const dbName = `bench_orders_${randomBytes(3).toString('hex')}`;
const u = new URL(base.DATABASE_URL);
u.pathname = `/${dbName}`;
const dbUrl = u.toString();
await admin(base.DATABASE_URL, `CREATE DATABASE ${dbName}`);
console.log(`database ${dbName} on ${u.host}`);
await migrateUp(dbUrl);

const env = { ...base, DATABASE_URL: dbUrl, RATE_LIMIT_SELLER_PER_MIN: 1_000_000, LOG_LEVEL: 'silent' as const };
const pool = createPool(dbUrl, Math.max(CONCURRENCY, 4) + 2);
const es = createEsClient(env.ELASTICSEARCH_URL, 1000);

// Where the entry's database time goes: wall time per statement kind (includes lock waits and
// the commit's WAL flush), printed after the entry pass.
const dbTime = new Map<string, { ms: number; n: number }>();
let timing = false;
function kindOf(sql: string): string {
  const s = sql.replace(/\s+/g, ' ').trim();
  if (/^BEGIN.*pg_advisory_xact_lock/i.test(s)) return 'BEGIN + seller lock';
  if (/^(BEGIN|COMMIT|ROLLBACK)/i.test(s)) return s.split(' ')[0]!.toUpperCase();
  if (s.startsWith('WITH s AS')) return 'seller and offer facts';
  if (s.startsWith('WITH ord AS')) return 'insert order+lines+holds+outbox row';
  return s.slice(0, 30);
}
pool.on('connect', (client) => {
  const original = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = async (...args: unknown[]) => {
    if (!timing) return original(...args);
    const sql = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string }).text ?? '');
    const t = performance.now();
    try {
      return await original(...args);
    } finally {
      const k = kindOf(sql);
      const e = dbTime.get(k) ?? { ms: 0, n: 0 };
      e.ms += performance.now() - t;
      e.n++;
      dbTime.set(k, e);
    }
  };
});

try {
  await pool.query(
    `INSERT INTO products (product_id, name, set_name, category)
       SELECT p, 'Card ' || p, 'Set ' || (p % 40), CASE WHEN p % 3 = 0 THEN 'Pokemon' ELSE 'Magic: The Gathering' END
         FROM generate_series(1, $1 / 4) p`,
    [SKUS],
  );
  await pool.query(
    `INSERT INTO skus (sku_id, product_id, condition, language, finish)
       SELECT s, (s - 1) / 4 + 1, (ARRAY['Near Mint', 'Lightly Played', 'Damaged', NULL])[s % 4 + 1], 'English', NULL
         FROM generate_series(1, $1) s`,
    [SKUS],
  );
  const sellerIds = [...Array.from({ length: SELLERS }, (_, i) => i + 1), WALK_SELLER];
  await pool.query(
    `INSERT INTO sellers (seller_id, seller_code, store_name, currency, region, terms_version)
       SELECT s, 'seller' || s, 'Store ' || s, 'CAD', 'CA', '2026-07' FROM unnest($1::int[]) s`,
    [sellerIds],
  );
  await pool.query(
    `INSERT INTO seller_shipping_options (seller_id, method, cost, tracked, position) SELECT s, 'Tracked', 1299, true, 0 FROM unnest($1::int[]) s`,
    [sellerIds],
  );
  await pool.query(
    `INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, external_ref, match_status)
       SELECT s, k.sku_id, k.product_id, 100 + (k.sku_id * 37) % 5000, 1000000000, 'ref-' || k.sku_id, 'matched'
         FROM unnest($1::int[]) s, skus k`,
    [sellerIds],
  );
  await pool.query('VACUUM ANALYZE');
  console.log(`seeded ${SKUS} skus, ${sellerIds.length} sellers listing each`);

  // ------------------------------------------------------------------------------------------
  // Entry through the checkout function.
  const customer = {
    name: 'Bench Buyer',
    email: 'bench@example.com',
    shipping_address: { line1: '1 Main St', line2: null, city: 'Halifax', province: 'NS', postal_code: 'B3H 1A1', country: 'CA' },
  };
  let next = 0;
  let lines = 0;
  const latencies: number[] = [];
  const rnd = (n: number) => Math.floor(Math.random() * n);
  async function worker(): Promise<void> {
    for (;;) {
      const i = next++;
      if (i >= ENTRIES) return;
      const count = 1 + rnd(5);
      const skus = new Set<number>();
      while (skus.size < count) skus.add(1 + rnd(SKUS));
      lines += count;
      const t = performance.now();
      await checkoutOrder(pool, {
        orderId: `ord_bench_${i}`,
        sellerId: 1 + rnd(SELLERS),
        currency: 'CAD',
        customer,
        shippingMethod: 'Tracked',
        lines: [...skus].map((skuId) => ({ skuId, quantity: 1 + rnd(3) })),
        tax: [{ label: 'HST', rate: 0.15 }],
      });
      latencies.push(performance.now() - t);
    }
  }
  const loadBeforeEntry = load();
  timing = true;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const entrySecs = (performance.now() - t0) / 1000;
  timing = false;
  latencies.sort((a, b) => a - b);
  console.log(
    `entry: ${ENTRIES} orders (${lines} lines, ${SELLERS} sellers, ${CONCURRENCY} in flight) in ${entrySecs.toFixed(1)} s = ` +
      `${Math.round(ENTRIES / entrySecs)} orders/s; p50 ${pct(latencies, 0.5).toFixed(1)} ms, p99 ${pct(latencies, 0.99).toFixed(1)} ms ` +
      `(${loadBeforeEntry} before, ${load()} after)`,
  );
  console.log(`  database ms per order (wall, summed over connections): ${[...dbTime].map(([k, v]) => `${k} ${(v.ms / ENTRIES).toFixed(2)}`).join(', ')}`);

  // ------------------------------------------------------------------------------------------
  // Poll walk: bulk orders of one seller (the walk reads them; their totals are not those of
  // their lines), then GET /orders to the end over HTTP.
  await seedWalkOrders(pool, WALK, WALK_SELLER, customer);
  await pool.query('VACUUM ANALYZE orders, order_lines');
  const key = (await issueApiKey(pool, `seller${WALK_SELLER}`, 'bench')).key;
  const infra = { env, pool, es, index: indexNames(dbName), logger: createLogger('silent') };
  const app = createApp(
    { ...infra, services: createServices(infra, { degraded: { watch: { enabled: false } }, warm: { enabled: false } }) },
    sellerRoutes,
  );
  const server = app.listen(0);
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/orders`;
  try {
    for (const pass of [1, 2]) {
      const loadBefore = load();
      const t1 = performance.now();
      let cursor: string | null = null;
      let items = 0;
      let pages = 0;
      let bytes = 0;
      const pageMs: number[] = [];
      do {
        const tp = performance.now();
        const res = await fetch(`${url}?limit=${LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`poll ${res.status}: ${text.slice(0, 200)}`);
        const body = JSON.parse(text) as { data: { items: unknown[]; nextCursor: string | null } };
        pageMs.push(performance.now() - tp);
        items += body.data.items.length;
        bytes += text.length;
        pages++;
        cursor = body.data.nextCursor;
      } while (cursor);
      const secs = (performance.now() - t1) / 1000;
      pageMs.sort((a, b) => a - b);
      if (items !== WALK) throw new Error(`walk saw ${items} orders, expected ${WALK}`);
      console.log(
        `walk pass ${pass}: ${items} orders in ${pages} pages (limit ${LIMIT}, ${(bytes / 1e6).toFixed(0)} MB) in ${secs.toFixed(2)} s = ` +
          `${Math.round(items / secs)} orders/s; page p50 ${pct(pageMs, 0.5).toFixed(0)} ms, p99 ${pct(pageMs, 0.99).toFixed(0)} ms ` +
          `(${loadBefore} before, ${load()} after)`,
      );
    }
  } finally {
    await new Promise((r) => server.close(r));
  }
} finally {
  await pool.end();
  await es.close();
  if (!values.keep) await admin(base.DATABASE_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  else console.log(`kept database ${dbName}`);
}
