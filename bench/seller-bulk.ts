// Seller bulk upsert benchmark (npm run bench:seller-bulk -- [--n 100000] [--batch 1000] [--concurrency 4] [--keep]).
//
// Creates its own fresh database on the server DATABASE_URL points at, migrates it, seeds a catalog
// (N skus, 95% of which the pushed listings match) and one platform seller with an API key, starts
// the API in-process on an ephemeral port, then pushes N listings through POST /listings/bulk in
// `batch`-item requests, `concurrency` at a time, over real HTTP. Three passes:
//   create  - every listing is new
//   update  - every listing changes price and quantity
//   repeat  - the update pass again: identical rows, nothing written
// and prints listings/s and request latency per pass. The database is dropped at the end unless --keep.
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { migrateUp } from '../src/db/migrate.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { createApp } from '../src/api/app.js';
import { createServices } from '../src/services.js';
import { sellerRoutes } from '../src/api/routes/seller/index.js';
import { issueApiKey } from '../src/db/api-keys.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '4' },
    keep: { type: 'boolean', default: false },
  },
});
const N = Number(values.n);
const BATCH = Number(values.batch);
const CONCURRENCY = Number(values.concurrency);

const baseEnv = loadEnv();
const dbName = `bench_seller_bulk_${randomBytes(3).toString('hex')}`;
const serverUrl = new URL(baseEnv.DATABASE_URL);
const dbUrl = new URL(baseEnv.DATABASE_URL);
dbUrl.pathname = `/${dbName}`;

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const u = new URL(serverUrl);
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

await admin((c) => c.query(`CREATE DATABASE ${dbName}`));
console.log(`database ${dbName} on ${serverUrl.host}`);
await migrateUp(dbUrl.toString());

const env = { ...baseEnv, DATABASE_URL: dbUrl.toString(), RATE_LIMIT_SELLER_PER_MIN: 1_000_000, LOG_LEVEL: 'silent' as const };
const pool = createPool(env.DATABASE_URL, 10);
pool.on('error', (err) => console.error(`idle database client error: ${err.message}`));
const es = createEsClient(env.ELASTICSEARCH_URL, 1000);

// Where the database time goes: every statement the API sends is timed by kind (wall time from
// send to result, so it includes waiting for the per-seller lock and for the commit's WAL flush).
const dbTime = new Map<string, { ms: number; n: number }>();
function kindOf(sql: string): string {
  const s = sql.replace(/\s+/g, ' ').trim();
  if (/^(BEGIN|COMMIT|ROLLBACK)/i.test(s)) return s.split(' ')[0]!.toUpperCase();
  if (s.includes('pg_advisory_xact_lock')) return 'seller lock';
  if (s.includes('FROM api_keys') || s.includes('JOIN api_keys')) return 'auth';
  if (/FROM skus s WHERE/.test(s)) return 'catalog lookup';
  if (/^SELECT l\.sku_id/.test(s)) return 'stored rows';
  if (/^INSERT INTO listings/.test(s)) return 'write (upsert)';
  return s.slice(0, 30);
}
pool.on('connect', (client) => {
  const original = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = async (...args: unknown[]) => {
    const sql = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string }).text ?? '');
    const t0 = performance.now();
    try {
      return await original(...args);
    } finally {
      const k = kindOf(sql);
      const e = dbTime.get(k) ?? { ms: 0, n: 0 };
      e.ms += performance.now() - t0;
      e.n++;
      dbTime.set(k, e);
    }
  };
});

// Catalog: one product per 4 skus; skus 1..N, except every 20th sku is left out (unmatched listings).
await pool.query(
  `
  INSERT INTO products (product_id, name, set_name, category)
  SELECT p, 'Card ' || p, 'Bench Set', 'Magic: The Gathering' FROM generate_series(1, ($1::int + 3) / 4) p;
  `.trim(),
  [N],
);
await pool.query(
  `INSERT INTO skus (sku_id, product_id, condition, language, finish)
   SELECT s, (s + 3) / 4, 'Near Mint', 'English', 'Non-Foil' FROM generate_series(1, $1::int) s WHERE s % 20 <> 0`,
  [N],
);
await pool.query(`
  INSERT INTO sellers (seller_id, seller_code, store_name, currency, region, inventory_source, terms_version)
  VALUES (1, 'bench', 'Bench Store', 'CAD', 'CA', 'platform', '2026-07')`);
const { key } = await issueApiKey(pool, 'bench', 'bench');
await pool.query('VACUUM ANALYZE');

const infra = { env, pool, es, index: indexNames('bench'), logger: createLogger('silent') };
// Seller routes never read through Degraded Mode: no cluster watcher.
const app = createApp({ ...infra, services: createServices(infra, { degraded: { watch: { enabled: false } }, warm: { enabled: false } }) }, sellerRoutes);
const server = app.listen(0);
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

function items(pass: 'create' | 'update', from: number, to: number) {
  const out = [];
  for (let s = from; s < to; s++) {
    out.push({
      op: 'upsert',
      skuId: s,
      productId: Math.floor((s + 3) / 4),
      price: pass === 'create' ? 100 + (s % 500) : 200 + (s % 700),
      quantity: pass === 'create' ? 1 + (s % 7) : 2 + (s % 5),
      externalRef: `EXT-${s}`,
      asOf: pass === 'create' ? '2026-11-01T00:00:00.000Z' : '2026-11-02T00:00:00.000Z',
    });
  }
  return out;
}

async function runPass(name: string, pass: 'create' | 'update'): Promise<void> {
  const batches: Array<[number, number]> = [];
  for (let s = 1; s <= N; s += BATCH) batches.push([s, Math.min(N + 1, s + BATCH)]);
  const latencies: number[] = [];
  const statuses = { applied: 0, unmatched: 0, rejected: 0 };
  let next = 0;
  dbTime.clear();
  const started = performance.now();
  async function worker() {
    while (next < batches.length) {
      const [from, to] = batches[next++]!;
      const body = JSON.stringify({ items: items(pass, from, to) });
      const t0 = performance.now();
      const res = await fetch(`${base}/listings/bulk`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body,
      });
      const json = (await res.json()) as { data: { results: Array<{ status: keyof typeof statuses }> } };
      latencies.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(json)}`);
      for (const r of json.data.results) statuses[r.status]++;
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(0);
  console.log(
    `${name.padEnd(7)} ${N} listings in ${seconds.toFixed(2)} s = ${Math.round(N / seconds).toLocaleString('en-US')} listings/s` +
      `  (${batches.length} requests, p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms, max ${pct(1)} ms;` +
      ` applied ${statuses.applied}, unmatched ${statuses.unmatched}, rejected ${statuses.rejected})`,
  );
  const perRequest = [...dbTime].map(([k, v]) => `${k} ${(v.ms / batches.length).toFixed(1)}`).join(', ');
  console.log(`        database ms per request: ${perRequest}`);
}

console.log(`pushing ${N} listings in ${BATCH}-item requests, ${CONCURRENCY} concurrent`);
try {
  await runPass('create', 'create');
  await runPass('update', 'update');
  await runPass('repeat', 'update');
  const { rows } = await pool.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE match_status = 'matched')::int AS m FROM listings`);
  console.log(`stored: ${rows[0].n} listings, ${rows[0].m} matched`);
} finally {
  await new Promise((r) => server.close(r));
  await pool.end();
  await es.close();
  if (!values.keep) await admin((c) => c.query(`DROP DATABASE ${dbName} WITH (FORCE)`));
  else console.log(`kept database ${dbName}`);
}
