// Degraded Mode benchmark (npm run bench:degraded -- [--listings 20000] [--duration 40] [--kill-at 15]
//   [--connections 8] [--requests 600] [--warm 0.5] [--heap 1g] [--keep]).
//
// Builds its own world: a fresh database on the server DATABASE_URL points at, loaded with the
// seeded sample marketplace (tools/sample), and a throwaway single-node Elasticsearch
// (test/support/es-node.ts; never the shared cluster) indexed by the real live indexer, in-process.
// The API listens on a loopback port. autocannon cycles through a fixed mix of buyer requests
// (searches with and without filters and cursors' first pages, product pages, cart lookups); a
// `warm` fraction of them is requested once before the run so the last-good cache holds them.
// At `kill-at` seconds the Elasticsearch process gets SIGKILL. Reported per phase (healthy,
// the first 2 s after the kill, degraded): status codes (5xx!), degraded answers, latency.
// After the run the node is restarted and the time until answers stop being degraded is measured.
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
import { routeModules } from '../src/api/routes/index.js';
import { createSample } from '../tools/sample/generate.js';
import { loadSample } from '../tools/sample/pg-load.js';
import { product as sampleProduct } from '../tools/sample/model.js';
import { startLiveIndexer } from '../indexer/live.js';
import { createServices } from '../src/services.js';
import { startEsNode } from '../test/support/es-node.js';
import { admin } from './world.js';

const { values } = parseArgs({
  options: {
    listings: { type: 'string', default: '20000' },
    duration: { type: 'string', default: '40' },
    'kill-at': { type: 'string', default: '15' },
    connections: { type: 'string', default: '8' },
    requests: { type: 'string', default: '600' },
    warm: { type: 'string', default: '0.5' },
    seed: { type: 'string', default: '7' },
    heap: { type: 'string', default: '1g' },
    keep: { type: 'boolean', default: false },
  },
});
const LISTINGS = Number(values.listings);
const DURATION = Number(values.duration);
const KILL_AT = Number(values['kill-at']);
const CONNECTIONS = Number(values.connections);
const REQUESTS = Number(values.requests);
const WARM = Number(values.warm);
const SEED = Number(values.seed);

const baseEnv = loadEnv();
const dbName = `bench_degraded_${randomBytes(3).toString('hex')}`;
const dbUrl = new URL(baseEnv.DATABASE_URL);
dbUrl.pathname = `/${dbName}`;
const log = (m: string) => console.log(`[bench:degraded] ${m}`);
const t = () => performance.now();

// ---- world ----
let t0 = t();
const node = await startEsNode({ heap: values.heap });
log(`throwaway Elasticsearch on ${node.url} up in ${Math.round(t() - t0)} ms`);
await admin(baseEnv.DATABASE_URL, `CREATE DATABASE ${dbName}`);
await migrateUp(dbUrl.toString());
const env = {
  ...baseEnv,
  DATABASE_URL: dbUrl.toString(),
  ELASTICSEARCH_URL: node.url,
  INDEX_PREFIX: dbName.replace(/_/g, '-'),
  LOG_LEVEL: 'silent' as const,
  RATE_LIMIT_PUBLIC_PER_MIN: 100_000_000,
};
const pool = createPool(env.DATABASE_URL, 20);
pool.on('error', (err) => console.error(`idle database client error: ${err.message}`));
const sample = createSample(LISTINGS, SEED);
t0 = t();
await loadSample(pool, sample, { row: () => undefined, done: () => undefined });
await pool.query('VACUUM ANALYZE');
log(`sample loaded: ${sample.sizes.products} products, ${LISTINGS} listings, ${sample.sizes.sellers} sellers in ${Math.round(t() - t0)} ms`);

const index = indexNames(env.INDEX_PREFIX);
const indexerEs = createEsClient(node.url, 30_000);
t0 = t();
const indexer = await startLiveIndexer({
  pool,
  es: indexerEs,
  index,
  logger: createLogger('silent'),
  databaseUrl: env.DATABASE_URL,
  pollMs: 500,
});
await indexer.idle();
await indexerEs.indices.refresh({ index: index.alias });
log(`indexed in ${Math.round(t() - t0)} ms`);

const infra = { env, pool, es: createEsClient(node.url, env.ES_REQUEST_TIMEOUT_MS), index, logger: createLogger('silent') };
// The warmer off: the bench warms its own share of requests (--warm), as it measured before.
const deps = { ...infra, services: createServices(infra, { warm: { enabled: false } }) };
const app = createApp(deps, routeModules);
const server = app.listen(0, '127.0.0.1');
await new Promise((r) => server.once('listening', r));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const mode = deps.services.degraded;

// ---- the request mix: deterministic, a few hundred distinct buyer reads ----
interface BenchReq {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}
let r = SEED;
const rnd = () => (r = (Math.imul(r, 1103515245) + 12345) >>> 0) / 4294967296;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const mix: BenchReq[] = [];
const words = new Set<string>();
for (let i = 1; i <= Math.min(sample.sizes.products, 400); i++)
  for (const w of (sampleProduct(SEED, sample.sizes, i).name ?? '').split(/\s+/)) if (w.length > 3) words.add(w);
const wordList = [...words];
const conditions = ['Near Mint', 'Lightly Played', 'Moderately Played', 'Damaged'];
while (mix.length < REQUESTS) {
  const k = rnd();
  if (k < 0.45) {
    const pid = 1 + Math.floor(rnd() * sample.sizes.products);
    const q = rnd() < 0.3 ? `?condition=${encodeURIComponent(pick(conditions))}` : '';
    mix.push({ method: 'GET', path: `/products/${pid}${q}` });
  } else if (k < 0.9) {
    const p = new URLSearchParams();
    if (rnd() < 0.6) p.set('keyword', pick(wordList));
    if (rnd() < 0.3) p.append('condition', pick(conditions));
    if (rnd() < 0.2) p.set('checkoutMode', pick(['express', 'manual']));
    if (rnd() < 0.3) p.set('sort', 'name_desc');
    if (rnd() < 0.3) p.set('limit', String(pick([10, 48, 100])));
    const s = p.toString();
    mix.push({ method: 'GET', path: `/search${s ? `?${s}` : ''}` });
  } else {
    const lines = Array.from({ length: 1 + Math.floor(rnd() * 20) }, () => ({
      sellerId: 1 + Math.floor(rnd() * sample.sizes.sellers),
      skuId: 1 + Math.floor(rnd() * sample.sizes.skus),
    }));
    mix.push({ method: 'POST', path: '/lines/lookup', body: JSON.stringify({ lines }), headers: { 'content-type': 'application/json' } });
  }
}
const warmCount = Math.floor(mix.length * WARM);
t0 = t();
const warmStatus: Record<string, number> = {};
let warmDegraded = 0;
for (const q of mix.slice(0, warmCount)) {
  const res = await fetch(base + q.path, { method: q.method, body: q.body, headers: q.headers });
  warmStatus[res.status] = (warmStatus[res.status] ?? 0) + 1;
  if ((await res.text()).includes('"degraded":true')) warmDegraded += 1;
}
log(
  `warmed ${warmCount} of ${mix.length} distinct requests in ${Math.round(t() - t0)} ms (statuses ${JSON.stringify(warmStatus)}, ` +
    `${warmDegraded} answered degraded); cache ${mode.status().cache.entries} entries, ${mode.status().cache.bytes} chars`,
);

// ---- the run ----
type Phase = 'healthy' | 'transition' | 'degraded';
interface PhaseStats {
  n: number;
  status: Record<string, number>;
  degraded: number;
  latencies: number[];
}
const phases: Record<Phase, PhaseStats> = {
  healthy: { n: 0, status: {}, degraded: 0, latencies: [] },
  transition: { n: 0, status: {}, degraded: 0, latencies: [] },
  degraded: { n: 0, status: {}, degraded: 0, latencies: [] },
};
let killedAt: number | null = null;
const phaseNow = (): Phase => (killedAt === null ? 'healthy' : t() - killedAt < 2000 ? 'transition' : 'degraded');

const startedAt = t();
let finish!: (r: autocannon.Result) => void;
let fail!: (e: unknown) => void;
const done = new Promise<autocannon.Result>((res, rej) => ((finish = res), (fail = rej)));
const instance = autocannon(
  {
    url: base,
    connections: CONNECTIONS,
    duration: DURATION,
    timeout: 10,
    requests: mix.map((q) => ({
      ...q,
      onResponse: (status: number, body: string) => {
        const p = phases[phaseNow()];
        p.status[String(status)] = (p.status[String(status)] ?? 0) + 1;
        if (body.includes('"degraded":true')) p.degraded += 1;
      },
    })),
  },
  (err, res) => (err ? fail(err) : finish(res)),
);
instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
  const p = phases[phaseNow()];
  p.n += 1;
  p.latencies.push(responseTime);
});
let failuresBeforeKill = 0;
const killer = setTimeout(() => {
  failuresBeforeKill = mode.counters().indexFailures;
  killedAt = t();
  log(`SIGKILL Elasticsearch at ${((killedAt - startedAt) / 1000).toFixed(1)} s`);
  void node.kill();
}, KILL_AT * 1000);
const result = await done;
clearTimeout(killer);

const pct = (xs: number[], q: number) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const rows: string[] = [];
for (const [name, p] of Object.entries(phases) as [Phase, PhaseStats][]) {
  const fiveXX = Object.entries(p.status)
    .filter(([s]) => Number(s) >= 500)
    .reduce((a, [, n]) => a + n, 0);
  rows.push(
    `| ${name.padEnd(10)} | ${String(p.n).padStart(7)} | ${String(fiveXX).padStart(3)} | ${String(p.degraded).padStart(7)} | ` +
      `${pct(p.latencies, 0.5).toFixed(1)} / ${pct(p.latencies, 0.95).toFixed(1)} / ${pct(p.latencies, 0.99).toFixed(1)} / ${Math.max(0, ...p.latencies).toFixed(0)} | ${JSON.stringify(p.status)} |`,
  );
}
console.log('\n| phase      | answers |5xx | degraded | latency ms p50 / p95 / p99 / max | statuses |');
console.log('|------------|---------|-----|----------|----------------------------------|----------|');
for (const row of rows) console.log(row);
const m = mode.counters();
console.log(
  `\ntotal ${result.requests.total} requests in ${DURATION} s (${Math.round(result.requests.average)} req/s avg), ` +
    `errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}`,
);
console.log(
  `service counters: index answers ${m.indexAnswers}, index failures ${m.indexFailures}, cache hits ${m.cacheHits}, ` +
    `PostgreSQL answers ${m.fallbacks} (queries run ${m.fallbackQueries}), fallback failures ${m.fallbackFailures}, 503s ${m.unavailable}, ` +
    `breaker opens ${m.opens}; index failures before the kill ${failuresBeforeKill}`,
);

// ---- recovery ----
t0 = t();
await node.restart();
const up = t();
log(`Elasticsearch restarted in ${Math.round(up - t0)} ms`);
let lastReport = up;
for (;;) {
  const res = await fetch(`${base}/search`);
  const body = (await res.json()) as { degraded?: boolean };
  if (res.status === 200 && body.degraded === undefined) break;
  if (t() - lastReport > 5000) {
    lastReport = t();
    log(`still degraded: ${JSON.stringify(((await (await fetch(`${base}/readyz`)).json()) as { data: unknown }).data)}`);
  }
  if (t() - up > 60_000) throw new Error('still degraded 60 s after the restart');
  await new Promise((res2) => setTimeout(res2, 100));
}
log(`Degraded Mode off ${Math.round(t() - up)} ms after Elasticsearch answered again`);

// ---- cleanup ----
mode.stop();
await indexer.stop();
server.close();
await Promise.allSettled([deps.es.close(), indexerEs.close()]);
await pool.end();
await node.destroy();
if (!values.keep) await admin(baseEnv.DATABASE_URL, `DROP DATABASE ${dbName} WITH (FORCE)`);
process.exit(0);
