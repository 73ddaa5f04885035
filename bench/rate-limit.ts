// What the shared per-key limit costs a seller request (npm run bench:rate-limit -- [--rounds 3]
// [--duration 10] [--connections 8] [--calls 5000] [--keep]).
//
// Creates its own database on DATABASE_URL's server, migrates it, seeds one platform seller with a
// key, and serves the seller routes from two in-process apps on the same database that differ only
// in where the per-key and failed-authentication budgets live: `memory` (this process) and
// `postgres` (the shared store every API process uses). Each round runs `GET /me` (key lookup,
// limit, one seller read) against one app, then the other, with autocannon for `duration` seconds
// at `connections`, alternating which goes first; it prints requests/s and latency per run, the
// ratio of the two side by side, and the machine's load average beside each. Then the limiter
// alone: `calls` sequential takes of each kind, in microseconds per take.
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
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
import { sharedLimiter } from '../src/lib/rate-limiter.js';
import { admin, load } from './world.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    calls: { type: 'string', default: '5000' },
    keep: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const CALLS = Number(values.calls);

const baseEnv = loadEnv();
const dbName = `bench_rate_limit_${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(baseEnv.DATABASE_URL);
dbUrl.pathname = `/${dbName}`;

await admin(baseEnv.DATABASE_URL, `CREATE DATABASE ${dbName}`);
console.log(`database ${dbName} on ${dbUrl.host}`);
await migrateUp(dbUrl.toString());

// A limit no run reaches: what is measured is the cost of keeping count, not of refusing.
const env = { ...baseEnv, DATABASE_URL: dbUrl.toString(), RATE_LIMIT_SELLER_PER_MIN: 1_000_000_000, LOG_LEVEL: 'silent' as const };
const pool = createPool(env.DATABASE_URL, env.PG_POOL_SIZE);
const authPool = createPool(env.DATABASE_URL, env.PG_AUTH_POOL_SIZE);
const es = createEsClient(env.ELASTICSEARCH_URL, 1000);
await pool.query(`
  INSERT INTO sellers (seller_id, seller_code, store_name, currency, region, inventory_source, terms_version)
  VALUES (1, 'bench', 'Bench Store', 'CAD', 'CA', 'platform', '2026-07')`);
const { key } = await issueApiKey(pool, 'bench', 'bench');
await pool.query('VACUUM ANALYZE');

const infra = { env, pool, authPool, es, index: indexNames('bench'), logger: createLogger('silent') };
async function serve(store: 'memory' | 'postgres') {
  const services = createServices(infra, { degraded: { watch: { enabled: false } }, warm: { enabled: false }, rateLimitStore: store });
  const server = createApp({ ...infra, services }, sellerRoutes).listen(0);
  await new Promise((r) => server.once('listening', r));
  return { store, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/me` };
}
const apps = [await serve('memory'), await serve('postgres')];

interface Run {
  store: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  load: string;
}

async function cannon(url: string, duration: number): Promise<autocannon.Result> {
  return autocannon({ url, connections: CONNECTIONS, duration, headers: { authorization: `Bearer ${key}` } });
}

// Warm both (JIT, connections, prepared statements) before anything is counted.
for (const a of apps) await cannon(a.url, 3);

const runs: Run[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? apps : [...apps].reverse();
  for (const a of order) {
    const r = await cannon(a.url, DURATION);
    const run = { store: a.store, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors, load: load() };
    runs.push(run);
    console.log(
      `round ${round + 1} ${a.store.padEnd(8)} ${run.rps.toFixed(0).padStart(6)} req/s  p50 ${run.p50} ms  p99 ${run.p99} ms  non-2xx ${run.non2xx}  ${run.load}`,
    );
  }
  const pair = runs.slice(-2);
  const m = pair.find((r) => r.store === 'memory')!;
  const p = pair.find((r) => r.store === 'postgres')!;
  console.log(`round ${round + 1} postgres / memory: req/s ${(p.rps / m.rps).toFixed(2)}, p50 ${p.p50} vs ${m.p50} ms`);
}

// The limiter alone, one take after the other: its own round trip, without HTTP, auth or the route.
for (const store of ['memory', 'postgres'] as const) {
  const limiter = sharedLimiter(
    store === 'memory' ? null : { pool: authPool, timeoutMs: 10_000, maxInFlight: env.PG_AUTH_POOL_SIZE },
    `bench-${store}`,
    1_000_000_000,
  );
  for (let i = 0; i < 500; i++) await limiter.take('warm');
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await limiter.take(`key:${i % 50}`);
  const us = ((performance.now() - t0) * 1000) / CALLS;
  console.log(`limiter alone, ${store.padEnd(8)}: ${us.toFixed(0)} µs a take (${CALLS} sequential takes, ${load()})`);
}

for (const a of apps) a.server.close();
await Promise.all([pool.end(), authPool.end(), es.close()]);
if (!values.keep) await admin(baseEnv.DATABASE_URL, `DROP DATABASE ${dbName} WITH (FORCE)`);
