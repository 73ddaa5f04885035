// Order commit-to-visible lag (npm run bench:order-lag -- [--listings 100000] [--rate 10]
//   [--duration 60] [--status-share 0.3] [--poll-ms 50] [--settle 60] [--keep]).
//
// The target: a store with 100,000 listings taking 10 orders/s keeps the commit-to-visible lag
// p99 under 2 s. One run:
//  1. a database of its own: a catalog of `listings` skus, ONE store holding a listing of each
//     (quantity 1000), a second small store; the index built by rebuild();
//  2. the live indexer (`indexer/main.ts`, a child process) follows the change feed while this
//     process commits, on one connection on a fixed schedule, `rate` orders per second as checkout
//     leaves them (orders + 1-3 order_lines + holds, one transaction, on listings no earlier order
//     touched), and after each order, with probability `status-share`, ships or cancels an earlier
//     order whose hold is already visible (a cancel also drops salesCount);
//  3. a poller searches the alias every `poll-ms` (no forced refresh: what a buyer read sees) and
//     records per change the time from COMMIT returning to:
//       hold   the offer of each line showing available = 1000 - quantity (1000 after ship/cancel);
//       count  the store's salesCount as a product page shows it for an offer NO order touched:
//              the seller document's `stats` when the index has them (read-time join), else that
//              offer document's own `offer.salesCount` (the model where counters were copied into
//              every offer). The index shows a prefix of the commits (one writer, feed in commit
//              order), so a change counts as visible once the shown count is that of it or of a
//              later commit (the earliest such commit is assumed: lags are upper bounds).
// The bench only uses code that both document models share, so the same file runs on an older
// checkout of the indexer for a side-by-side "before" (BENCHMARKS.md says how).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { migrateUp } from '../src/db/migrate.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { rebuild } from '../indexer/rebuild.js';
import { cpuLine, cpuMeter } from './cpu.js';
import { admin, load, pct, sleep, spawnIndexer } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    listings: { type: 'string', default: '100000' },
    rate: { type: 'string', default: '10' },
    duration: { type: 'string', default: '60' },
    'status-share': { type: 'string', default: '0.3' },
    'poll-ms': { type: 'string', default: '50' },
    /** Seconds to keep polling after the last commit for changes not yet visible. */
    settle: { type: 'string', default: '60' },
    keep: { type: 'boolean', default: false },
  },
});
const LISTINGS = Number(values.listings);
const RATE = Number(values.rate);
const DURATION = Number(values.duration);
const STATUS_SHARE = Number(values['status-share']);
const POLL_MS = Number(values['poll-ms']);
const SETTLE_MS = Number(values.settle) * 1000;
const QUANTITY = 1000;
const BIG = 1;
const log = (m: string) => console.log(`[bench:order-lag] ${m}`);
const now = () => performance.now();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// A tiny seeded generator: the same orders on every run.
let seed = 12345;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};

const base = loadEnv();
const dbName = `bench_orderlag_${randomBytes(3).toString('hex')}`;
const u = new URL(base.DATABASE_URL);
u.pathname = `/${dbName}`;
const dbUrl = u.toString();
const prefix = `bench-${randomBytes(3).toString('hex')}`;
const index = indexNames(prefix);
const es = createEsClient(base.ELASTICSEARCH_URL, 120_000);
const summary: string[] = [];

let child: ReturnType<typeof spawn> | null = null;
let pool: ReturnType<typeof createPool> | null = null;
try {
  // ---- 1. the store and its index ----
  const t0 = now();
  await admin(base.DATABASE_URL, `CREATE DATABASE ${dbName}`);
  await migrateUp(dbUrl);
  pool = createPool(dbUrl, 4);
  pool.on('error', (err) => console.error(`idle database client error: ${err.message}`));
  const products = Math.ceil(LISTINGS / 4);
  await pool.query(
    `INSERT INTO products (product_id, name, set_name, category)
       SELECT g, 'Card ' || g, 'Set ' || (g % 50), 'Magic: The Gathering' FROM generate_series(1, $1::int) g`,
    [products],
  );
  await pool.query(
    `INSERT INTO skus (sku_id, product_id, condition, language, finish)
       SELECT g, 1 + (g - 1) / 4, (ARRAY['Near Mint', 'Lightly Played', 'Damaged', 'Unopened'])[1 + g % 4], 'English', 'Non-Foil'
         FROM generate_series(1, $1::int) g`,
    [LISTINGS],
  );
  await pool.query(`
    INSERT INTO sellers (seller_id, seller_code, store_name, currency, region, inventory_source, terms_version) VALUES
      (1, 'big', 'Big Store', 'CAD', 'CA', 'platform', '2026-07'), (2, 'small', 'Small Store', 'CAD', 'CA', 'platform', '2026-07');
    INSERT INTO seller_shipping_options (seller_id, method, cost, tracked, position) VALUES (1, 'Tracked', 999, true, 0), (2, 'Tracked', 999, true, 0);
    INSERT INTO seller_reviews (seller_id, position, score) VALUES (1, 0, 5), (1, 1, 4);`);
  await pool.query(
    `INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status)
       SELECT 1, g, 1 + (g - 1) / 4, 100 + g % 500, ${QUANTITY}, 'matched' FROM generate_series(1, $1::int) g
     UNION ALL
       SELECT 2, g, 1 + (g - 1) / 4, 120 + g % 300, 5, 'matched' FROM generate_series(1, $1::int, 100) g`,
    [LISTINGS],
  );
  await pool.query('VACUUM ANALYZE');
  const r = await rebuild({ pool, es, index, logger: createLogger('silent') });
  summary.push(
    `store of ${LISTINGS} listings (+ ${Math.ceil(LISTINGS / 100)} of a second store) loaded and indexed (${r.docs} docs) in ${((now() - t0) / 1000).toFixed(1)} s; ${load()}`,
  );
  log(summary.at(-1)!);
  const mapping = await es.indices.getMapping({ index: index.alias });
  const modelVersion = (Object.values(mapping)[0]!.mappings._meta as { version?: number } | undefined)?.version;

  // ---- 2. the live indexer ----
  const spawned = spawnIndexer(root, { DATABASE_URL: dbUrl, ELASTICSEARCH_URL: base.ELASTICSEARCH_URL, INDEX_PREFIX: prefix }, log);
  child = spawned.child;
  const batches = spawned.batches;
  await sleep(4000); // start-up (tsx compile, LISTEN)

  // ---- 3. orders, status changes and the poller ----
  // Listings in a fixed shuffled order; each order takes the next ones, so every offer sees at most one order.
  const free = Array.from({ length: LISTINGS - 1 }, (_, i) => i + 2); // sku 1 is the salesCount probe: no order touches it
  for (let i = free.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [free[i], free[j]] = [free[j]!, free[i]!];
  }
  const PROBE = `n:${BIG}:1`;
  type Pending = { want: number; committedAt: number };
  const holdPending = new Map<string, Pending>();
  const holdLags: number[] = [];
  const releaseLags: number[] = [];
  const isRelease = new Set<string>();
  // salesCount after each commit, in commit order, and when that commit returned.
  const counts: { count: number; committedAt: number }[] = [];
  let countSeen = -1; // the latest commit whose count the index is known to show
  const countLags: number[] = [];
  let visibleCount: number | null = null;
  const entered: { orderId: string; skus: number[] }[] = [];
  let salesCount = 0;
  let stop = false;
  let stopAt = Infinity;
  let polls = 0;

  const poller = (async () => {
    while (!stop || holdPending.size > 0 || countSeen < counts.length - 1) {
      const started = now();
      const ids = [...holdPending.keys(), PROBE, `s:${BIG}`];
      const res = await es.search<{ available?: number; stats?: { salesCount: number }; offer?: { salesCount?: number } }>({
        index: index.alias,
        size: ids.length,
        query: { ids: { values: ids } },
        _source: ['available', 'stats', 'offer.salesCount'],
      });
      const at = now();
      polls += 1;
      let seller: number | undefined;
      let probe: number | undefined;
      for (const h of res.hits.hits) {
        if (h._id === `s:${BIG}`) seller = h._source?.stats?.salesCount;
        else if (h._id === PROBE) probe = h._source?.offer?.salesCount;
        const p = holdPending.get(h._id!);
        if (p && h._source?.available === p.want) {
          (isRelease.has(h._id!) ? releaseLags : holdLags).push(at - p.committedAt);
          holdPending.delete(h._id!);
          isRelease.delete(h._id!);
        }
      }
      // The count a product page shows for an offer no order touched.
      visibleCount = seller ?? probe ?? null;
      if (visibleCount !== null) {
        let k = countSeen + 1;
        while (k < counts.length && counts[k]!.count !== visibleCount) k++;
        // Counts repeat (a cancel after an order); the earliest match keeps the lag an upper bound.
        if (k < counts.length && k > countSeen) {
          for (let i = countSeen + 1; i <= k; i++) countLags.push(at - counts[i]!.committedAt);
          countSeen = k;
        }
      }
      if (stop && at - stopAt > SETTLE_MS) break;
      await sleep(Math.max(0, POLL_MS - (now() - started)));
    }
  })();

  const cpu = await cpuMeter(pool, es);
  const c0 = await cpu.sample();
  const writer = await pool.connect();
  const commitMs: number[] = [];
  let late = 0;
  let orders = 0;
  let moves = 0;
  const total = Math.round(RATE * DURATION);
  const t1 = now();
  try {
    for (let i = 0; i < total; i++) {
      const due = t1 + (i * 1000) / RATE;
      const wait = due - now();
      if (wait > 0) await sleep(wait);
      else if (wait < -100) late += 1;
      // One order of 1-3 lines on fresh listings.
      const n = 1 + Math.floor(rnd() * 3);
      const skus = free.splice(0, n);
      const qty = skus.map(() => 1 + Math.floor(rnd() * 5));
      const orderId = `bench_${i}`;
      const s = now();
      await writer.query('BEGIN');
      await writer.query(`INSERT INTO orders (order_id, seller_id, status, has_money) VALUES ($1, $2, 'created', true)`, [orderId, BIG]);
      await writer.query(
        `INSERT INTO order_lines (order_id, position, sku_id, product_id, quantity, ordered_quantity, unit_price, name, set_name, condition)
           SELECT $1, p - 1, k.sku, 1 + (k.sku - 1) / 4, k.q, k.q, 100, '', '', '' FROM unnest($2::int[], $3::int[]) WITH ORDINALITY AS k(sku, q, p)`,
        [orderId, skus, qty],
      );
      await writer.query(
        `INSERT INTO holds (order_id, seller_id, sku_id, quantity) SELECT $1, $2, k.sku, k.q FROM unnest($3::int[], $4::int[]) AS k(sku, q)`,
        [orderId, BIG, skus, qty],
      );
      await writer.query('COMMIT');
      let committedAt = now();
      commitMs.push(committedAt - s);
      orders += 1;
      salesCount += 1;
      counts.push({ count: salesCount, committedAt });
      skus.forEach((sku, j) => holdPending.set(`n:${BIG}:${sku}`, { want: QUANTITY - qty[j]!, committedAt }));
      entered.push({ orderId, skus });

      // The status mix: ship or cancel an earlier order whose holds are all visible already.
      if (rnd() < STATUS_SHARE) {
        const at = entered.findIndex((o) => o.skus.every((k) => !holdPending.has(`n:${BIG}:${k}`)));
        if (at >= 0) {
          const [o] = entered.splice(at, 1);
          const cancel = rnd() < 0.5;
          await writer.query(`UPDATE orders SET status = $2 WHERE order_id = $1`, [o!.orderId, cancel ? 'cancelled' : 'shipped']);
          committedAt = now();
          moves += 1;
          if (cancel) salesCount -= 1;
          counts.push({ count: salesCount, committedAt });
          for (const k of o!.skus) {
            holdPending.set(`n:${BIG}:${k}`, { want: QUANTITY, committedAt });
            isRelease.add(`n:${BIG}:${k}`);
          }
        }
      }
    }
  } finally {
    writer.release();
  }
  const writeSecs = (now() - t1) / 1000;
  stopAt = now();
  stop = true;
  await poller;
  const c1 = await cpu.sample();
  const neverHolds = holdPending.size;
  const neverCounts = counts.length - 1 - countSeen;
  for (const xs of [holdLags, releaseLags, countLags, commitMs]) xs.sort((a, b) => a - b);
  const line = (xs: number[]) =>
    `p50 ${pct(xs, 0.5).toFixed(0)} / p90 ${pct(xs, 0.9).toFixed(0)} / p99 ${pct(xs, 0.99).toFixed(0)} / max ${pct(xs, 1).toFixed(0)} ms (n ${xs.length})`;
  const all = [...holdLags, ...releaseLags, ...countLags].sort((a, b) => a - b);
  const bDocs = batches.map((b) => b.docs).sort((a, b) => a - b);
  const bMs = batches.map((b) => b.ms).sort((a, b) => a - b);
  summary.push(
    `document model version ${modelVersion}; ${orders} orders + ${moves} ship/cancel in ${writeSecs.toFixed(1)} s ` +
      `(${(orders / writeSecs).toFixed(1)} orders/s, ${late} started >100 ms late); ${load()}`,
  );
  summary.push(`  hold visible (available - quantity):   ${line(holdLags)}`);
  summary.push(`  release visible (ship/cancel):          ${line(releaseLags)}`);
  summary.push(`  salesCount visible on an untouched offer: ${line(countLags)}`);
  summary.push(
    `  ALL changes commit-to-visible ${line(all)}; not visible ${SETTLE_MS / 1000} s after the last commit: ${neverHolds} offers, ${neverCounts} counts (target p99 < 2000)`,
  );
  summary.push(
    `  order tx ms p50 ${pct(commitMs, 0.5).toFixed(1)} / p99 ${pct(commitMs, 0.99).toFixed(1)}; ${polls} polls; indexer batches ${batches.length}: ` +
      `docs written p50 ${pct(bDocs, 0.5)} / max ${pct(bDocs, 1)}, batch ms p50 ${pct(bMs, 0.5)} / p99 ${pct(bMs, 0.99)} / max ${pct(bMs, 1)}`,
  );
  summary.push(`  ${cpuLine(c0, c1)} (the indexer child is inside neither figure but the 'postgres'/'elasticsearch' work it causes)`);
  for (const s of summary.slice(-7)) log(s);
} finally {
  if (child) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  await es.indices.delete({ index: index.pattern }).catch(() => undefined);
  await pool?.end();
  await es.close();
  if (!values.keep) await admin(base.DATABASE_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
}

console.log(`\n## bench:order-lag ${new Date().toISOString()} (${dbName})`);
for (const s of summary) console.log(s);
process.exit(0);
