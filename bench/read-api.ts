// Read API benchmark (npm run bench:read-api -- [--db NAME --prefix P] [--listings 500000] [--seed 1]
//   [--duration 20] [--connections 8] [--rounds 2] [--lines 20] [--mix 600] [--api-log FILE] [--pin [--load-with es]] [--floor]).
//
// The buyer API runs as its own process (`node --import tsx src/main.ts`, i.e. `npm run api`, with
// PORT, DATABASE_URL, INDEX_PREFIX and a public rate limit high enough never to answer 429), over
// the sample marketplace indexed behind an alias. For each of the three routes, autocannon (in this
// process) runs for a fixed duration against the API, and in the same run against Elasticsearch's
// own HTTP endpoint with the requests the API itself sends for the same buyer requests: they are
// captured from the Elasticsearch client (`indexReads`, i.e. the query builders of
// src/search/queries: productOffersBody + productDocBody via _msearch, searchBody via _search,
// lookupIds via _mget) while the mix is prepared, so both sides do the same Elasticsearch work.
// Every request of a mix is used once before the next repeats (one shared counter across
// connections). Runs alternate ES, API, ES, API... per route.
//
// Without --db/--prefix a database is created, loaded, indexed with rebuild() and dropped after.
//
// --pin (Linux, >= 2 CPUs, taskset): for the whole run Elasticsearch (the java process listening
// on ELASTICSEARCH_URL's port, all threads) is pinned to CPU 0, and the API child and this process
// (autocannon) to CPU 1, so the API's CPU is not taken from Elasticsearch (production runs
// the API on its own hosts). Elasticsearch's previous CPUs are restored on exit, error or Ctrl-C.
// Without it the three share all CPUs. The output header says which topology was measured.
// --load-with es: autocannon on CPU 0 with Elasticsearch instead, so the API has CPU 1 to itself.
// Its cost then weighs on Elasticsearch equally in the direct
// and the API runs, where with the default it weighs on the API's side of the ratio only.
//
// --floor: each round also sends the Elasticsearch side's requests through bench/pass-through.ts
// (its own process, beside the API), a proxy that forwards bytes and parses nothing: the share of
// the API's overhead that is the extra hop itself rather than the API's own work.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { createPool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { indexReads } from '../src/search/index-reads.js';
import { decodeSearchCursor } from '../src/search/cursor.js';
import { lookupBodySchema, productQuerySchema, searchQuerySchema } from '../src/contract/buyer.js';
import { rebuild } from '../indexer/rebuild.js';
import { cpuLine, cpuMeter, pin, type Pinning } from './cpu.js';
import { loadEnv } from '../src/config/env.js';
import { load, openWorld, sleep } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    db: { type: 'string' },
    prefix: { type: 'string' },
    listings: { type: 'string', default: '500000' },
    seed: { type: 'string', default: '1' },
    duration: { type: 'string', default: '20' },
    connections: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    lines: { type: 'string', default: '20' },
    mix: { type: 'string', default: '400' },
    /** A second set of runs at this many connections, for latency below saturation (0: none). */
    'latency-connections': { type: 'string', default: '1' },
    'api-log': { type: 'string' },
    only: { type: 'string' },
    pin: { type: 'boolean', default: false },
    /** With --pin: the CPU autocannon shares, 'api' (default) or 'es'. */
    'load-with': { type: 'string', default: 'api' },
    /** Also measure bench/pass-through.ts (Elasticsearch behind a proxy that parses nothing). */
    floor: { type: 'boolean', default: false },
  },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const ROUNDS = Number(values.rounds);
const LINES = Number(values.lines);
const MIX = Number(values.mix);
const log = (m: string) => console.log(`[bench:read-api] ${m}`);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Pinned first, so the whole run (set-up included) is measured in one topology.
if (!['api', 'es'].includes(values['load-with']!)) throw new Error(`--load-with: 'api' or 'es', not '${values['load-with']}'`);
const pinning: Pinning | null = values.pin
  ? pin(loadEnv().ELASTICSEARCH_URL, { esCpu: 0, apiCpu: 1, benchCpu: values['load-with'] === 'es' ? 0 : 1, log })
  : null;
const topology = pinning ? pinning.describe : () => 'not pinned: Elasticsearch, the API and autocannon share all CPUs';

const world = await openWorld({ tag: 'readapi', db: values.db, listings: Number(values.listings), seed: Number(values.seed), log });
const env = world.env;
const pool = createPool(env.DATABASE_URL, 4);
const es = createEsClient(env.ELASTICSEARCH_URL, 60_000);
let prefix = values.prefix;
let ownIndex = false;
if (prefix === undefined) {
  prefix = `bench-${randomBytes(3).toString('hex')}`;
  ownIndex = true;
  const t0 = performance.now();
  await pool.query(`DELETE FROM feed_checkpoints WHERE consumer = 'live'`);
  const r = await rebuild({ pool, es, index: indexNames(prefix), logger: createLogger('silent') });
  log(`indexed ${r.docs} docs behind ${indexNames(prefix).alias} in ${Math.round(performance.now() - t0)} ms`);
}
const alias = indexNames(prefix).alias;
const esUrl = new URL(env.ELASTICSEARCH_URL);
const esBase = `${esUrl.protocol}//${esUrl.host}`;

// ---- the API, its own process ----
const port = 20000 + Math.floor(Math.random() * 20000);
const apiBase = `http://127.0.0.1:${port}`;
const api: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(port),
    DATABASE_URL: env.DATABASE_URL,
    ELASTICSEARCH_URL: env.ELASTICSEARCH_URL,
    INDEX_PREFIX: prefix,
    RATE_LIMIT_PUBLIC_PER_MIN: '1000000000',
  },
  stdio: ['ignore', values['api-log'] ? 'pipe' : 'ignore', 'inherit'],
});
if (values['api-log']) api.stdout!.pipe(createWriteStream(values['api-log']));
// An error or Ctrl-C must not leave the API running (nor Elasticsearch pinned: see pin()).
process.once('exit', () => api.kill('SIGTERM'));
pinning?.pinApi(api.pid!, 'API');
for (let i = 0; ; i++) {
  try {
    const res = await fetch(`${apiBase}/search?limit=1`);
    if (res.status === 200) break;
  } catch {
    /* not up yet */
  }
  if (i > 100) throw new Error('API did not come up');
  await sleep(200);
}
log(`API (pid ${api.pid}) on ${apiBase}, index ${alias}; ${load()}; ${topology()}`);

// ---- the floor: the same hop, nothing parsed (--floor) ----
let floorBase: string | null = null;
let floorProc: ChildProcess | null = null;
if (values.floor) {
  const floorPort = port + 1;
  floorProc = spawn(process.execPath, ['--import', 'tsx', 'bench/pass-through.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(floorPort), ELASTICSEARCH_URL: env.ELASTICSEARCH_URL },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  process.once('exit', () => floorProc?.kill('SIGTERM'));
  pinning?.pinApi(floorProc.pid!, 'pass-through proxy');
  floorBase = `http://127.0.0.1:${floorPort}`;
  for (let i = 0; ; i++) {
    try {
      await fetch(`${floorBase}/_cluster/health`);
      break;
    } catch {
      /* not up yet */
    }
    if (i > 100) throw new Error('pass-through proxy did not come up');
    await sleep(200);
  }
  log(`pass-through proxy (pid ${floorProc.pid}) on ${floorBase}`);
}

// ---- capture the Elasticsearch request of each buyer read, from the API's own read code ----
interface Req {
  method: 'GET' | 'POST';
  path: string;
  body?: string;
  headers?: Record<string, string>;
}
const captureEs = createEsClient(env.ELASTICSEARCH_URL, 60_000);
let captured: Req | null = null;
captureEs.diagnostic.on('request', (err, result) => {
  if (err || !result) return;
  const p = result.meta.request.params;
  const qs = typeof p.querystring === 'string' && p.querystring !== '' ? `?${p.querystring}` : '';
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.headers ?? {})) if (k === 'content-type' || k === 'accept') headers[k] = String(v);
  captured = { method: p.method as 'GET' | 'POST', path: `${p.path}${qs}`, body: typeof p.body === 'string' ? p.body : p.body?.toString(), headers };
});
const reads = indexReads(captureEs, alias);
const take = (): Req => {
  const c = captured;
  captured = null;
  if (!c) throw new Error('no Elasticsearch request captured');
  return c;
};

let seed = Number(values.seed) * 7919 + 17;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const qsOf = (o: Record<string, string | string[]>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  const s = p.toString();
  return s ? `?${s}` : '';
};

// Product ids: popular products (most offers) and the long tail.
const { rows: popular } = await pool.query(`SELECT product_id FROM listings GROUP BY product_id ORDER BY count(*) DESC LIMIT 1000`);
const { rows: maxP } = await pool.query(`SELECT max(product_id)::int AS m FROM products`);
const conditions = ['Near Mint', 'Lightly Played', 'Moderately Played', 'Heavily Played', 'Damaged'];
const { rows: cats } = await pool.query(`SELECT DISTINCT category FROM products WHERE category IS NOT NULL`);
const { rows: sets } = await pool.query(`SELECT set_name FROM products WHERE set_name IS NOT NULL GROUP BY set_name ORDER BY count(*) DESC LIMIT 50`);
const { rows: nameRows } = await pool.query(`SELECT name FROM products WHERE name IS NOT NULL ORDER BY product_id LIMIT 3000`);
const words = [...new Set(nameRows.flatMap((r) => String(r.name).split(/\s+/)).filter((w) => /^[A-Za-z]{4,}$/.test(w)))];
const { rows: sellerCodes } = await pool.query(`SELECT seller_code FROM sellers ORDER BY seller_id LIMIT 20`);

const t0 = performance.now();
const mixes: Record<'products' | 'search' | 'lookup', { api: Req[]; es: Req[] }> = {
  products: { api: [], es: [] },
  search: { api: [], es: [] },
  lookup: { api: [], es: [] },
};

// GET /products/{id}: 70% popular, 30% anywhere; 20% filtered by condition; some smaller pages.
for (let i = 0; i < MIX; i++) {
  const id = rnd() < 0.7 ? Number(pick(popular).product_id) : 1 + Math.floor(rnd() * maxP[0].m);
  const raw: Record<string, string | string[]> = {};
  if (rnd() < 0.2) raw.condition = pick(conditions);
  if (rnd() < 0.2) raw.limit = String(pick([10, 24, 100]));
  await reads.productPage(id, productQuerySchema.parse(raw));
  mixes.products.es.push(take());
  mixes.products.api.push({ method: 'GET', path: `/products/${id}${qsOf(raw)}` });
}

// GET /search: landing grid, keywords, filters, sorts, and the next pages through real cursors.
type Raw = Record<string, string | string[]>;
const firstPages: Raw[] = [];
while (firstPages.length < Math.ceil(MIX * 0.7)) {
  const k = rnd();
  const raw: Raw = {};
  if (k < 0.15) {
    // landing grid: no filter at all, maybe another sort / size
    if (rnd() < 0.3) raw.sort = 'name_desc';
  } else if (k < 0.6) {
    raw.keyword = rnd() < 0.3 ? `${pick(words)} ${pick(words)}` : pick(words);
    if (rnd() < 0.3) raw.condition = pick(conditions);
  } else {
    raw.category = String(pick(cats).category);
    if (rnd() < 0.5) raw.set = String(pick(sets).set_name);
    if (rnd() < 0.4) raw.condition = rnd() < 0.5 ? pick(conditions) : [pick(conditions), pick(conditions)];
    if (rnd() < 0.2) raw.checkoutMode = pick(['express', 'manual']);
    if (rnd() < 0.1) raw.sellerCode = String(pick(sellerCodes).seller_code);
  }
  if (rnd() < 0.2) raw.sort = 'name_desc';
  if (rnd() < 0.3) raw.limit = String(pick([12, 48, 100]));
  firstPages.push(raw);
}
for (const raw of firstPages) {
  const q = searchQuerySchema.parse(raw);
  await reads.search(q, null);
  mixes.search.es.push(take());
  mixes.search.api.push({ method: 'GET', path: `/search${qsOf(raw)}` });
  // Next pages (2 and 3) of some of them, through the cursor the API hands out.
  if (rnd() < 0.3) {
    let cursorRaw = raw;
    for (let page = 2; page <= 3 && mixes.search.api.length < MIX; page++) {
      const res = await fetch(`${apiBase}/search${qsOf(cursorRaw)}`);
      const body = (await res.json()) as { data: { nextCursor: string | null } };
      const cursor = body.data.nextCursor;
      if (!cursor) break;
      cursorRaw = { ...raw, cursor };
      const cq = searchQuerySchema.parse(cursorRaw);
      await reads.search(cq, decodeSearchCursor(env.CURSOR_SECRET, cq.sort, cursor));
      mixes.search.es.push(take());
      mixes.search.api.push({ method: 'GET', path: `/search${qsOf(cursorRaw)}` });
    }
  }
  if (mixes.search.api.length >= MIX) break;
}

// POST /lines/lookup: carts of LINES lines, mostly listed pairs, a few unknown.
const { rows: pairs } = await pool.query(`SELECT seller_id, sku_id FROM listings ORDER BY random() LIMIT $1`, [MIX * LINES]);
const { rows: maxS } = await pool.query(`SELECT max(sku_id)::int AS m FROM skus`);
for (let i = 0; i < MIX; i++) {
  const lines = Array.from({ length: LINES }, (_, j) => {
    const p = pairs[(i * LINES + j) % pairs.length]!;
    return rnd() < 0.05 ? { sellerId: p.seller_id, skuId: 1 + Math.floor(rnd() * maxS[0].m) } : { sellerId: p.seller_id, skuId: p.sku_id };
  });
  const body = lookupBodySchema.parse({ lines });
  await reads.lookup(body);
  mixes.lookup.es.push(take());
  mixes.lookup.api.push({ method: 'POST', path: '/lines/lookup', body: JSON.stringify({ lines }), headers: { 'content-type': 'application/json' } });
}
log(
  `mix: ${mixes.products.api.length} product pages, ${mixes.search.api.length} searches (${mixes.search.api.filter((r) => r.path.includes('cursor=')).length} cursor pages), ` +
    `${mixes.lookup.api.length} carts of ${LINES} lines; prepared in ${Math.round(performance.now() - t0)} ms`,
);
log(`e.g. ES side of a search: ${mixes.search.es[0]!.method} ${mixes.search.es[0]!.path} (${mixes.search.es[0]!.body?.length} bytes)`);
log(`e.g. ES side of a product page: ${mixes.products.es[0]!.method} ${mixes.products.es[0]!.path}`);
log(`e.g. ES side of a lookup: ${mixes.lookup.es[0]!.method} ${mixes.lookup.es[0]!.path}`);
await captureEs.close();

// ---- the runs ----
interface RunResult {
  rps: number;
  p50: number;
  mean: number;
  p90: number;
  p99: number;
  requests: number;
  non2xx: number;
  fiveXX: number;
  errors: number;
  degraded: number;
  cpu: string;
  load: string;
}
const cpu = await cpuMeter(pool, es, { pid: api.pid!, name: 'API process' });
async function run(base: string, reqs: Req[], connections: number): Promise<RunResult> {
  let next = 0;
  let degraded = 0;
  const c0 = await cpu.sample();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url: base,
        connections,
        duration: DURATION,
        timeout: 10,
        requests: [
          {
            setupRequest: (req) => {
              const r = reqs[next++ % reqs.length]!;
              return { ...req, method: r.method, path: r.path, body: r.body, headers: { ...(r.headers ?? {}) } };
            },
            // Both sides pay for reading bodies; only API answers can say degraded.
            onResponse: (_status: number, body: string) => {
              if (body.startsWith('{"success":true,"degraded":true')) degraded += 1;
            },
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
  const c1 = await cpu.sample();
  return {
    rps: result.requests.total / DURATION,
    p50: result.latency.p50,
    mean: result.latency.mean,
    p90: result.latency.p90,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    fiveXX: result['5xx'],
    errors: result.errors + result.timeouts,
    degraded,
    cpu: cpuLine(c0, c1, cpu.otherName),
    load: load(),
  };
}

const lines: string[] = [];
const rows: string[] = [];
const floorRows: string[] = [];
const routes = (['products', 'search', 'lookup'] as const).filter((r) => values.only === undefined || values.only.split(',').includes(r));
const label = { products: 'GET /products/{id}', search: 'GET /search', lookup: 'POST /lines/lookup' };
const LAT_CONNECTIONS = Number(values['latency-connections']);
const settings = [CONNECTIONS, ...(LAT_CONNECTIONS > 0 ? [LAT_CONNECTIONS] : [])];
for (const route of routes) {
  // Warm both sides over part of the mix (JIT, page cache) before measuring.
  for (const r of mixes[route].api.slice(0, 100))
    await (await fetch(apiBase + r.path, { method: r.method, body: r.body, headers: r.headers })).arrayBuffer();
  for (const connections of settings) {
    for (let round = 0; round < (connections === CONNECTIONS ? ROUNDS : 1); round++) {
      const e = await run(esBase, mixes[route].es, connections);
      log(
        `${label[route]} c=${connections} ES  round ${round + 1}: ${e.rps.toFixed(0)} req/s, mean ${e.mean.toFixed(2)} ms, p50 ${e.p50} ms, p99 ${e.p99} ms, non-2xx ${e.non2xx}, errors ${e.errors}; ${e.load}; ${e.cpu}`,
      );
      const f = floorBase ? await run(floorBase, mixes[route].es, connections) : null;
      if (f)
        log(
          `${label[route]} c=${connections} pass-through round ${round + 1}: ${f.rps.toFixed(0)} req/s, mean ${f.mean.toFixed(2)} ms, p50 ${f.p50} ms, p99 ${f.p99} ms, non-2xx ${f.non2xx}, errors ${f.errors}; ${f.cpu}`,
        );
      const a = await run(apiBase, mixes[route].api, connections);
      log(
        `${label[route]} c=${connections} API round ${round + 1}: ${a.rps.toFixed(0)} req/s, mean ${a.mean.toFixed(2)} ms, p50 ${a.p50} ms, p99 ${a.p99} ms, non-2xx ${a.non2xx} (5xx ${a.fiveXX}), errors ${a.errors}, degraded ${a.degraded}; ${a.load}; ${a.cpu}`,
      );
      lines.push(`${label[route]} c=${connections} round ${round + 1}: ES ${e.cpu} | API ${a.cpu}`);
      if (f)
        floorRows.push(
          `| ${label[route]} | ${connections} | ${round + 1} | ${e.p50} (${e.mean.toFixed(1)}) | ${e.rps.toFixed(0)} | ${f.p50} (${f.mean.toFixed(1)}) | ${f.rps.toFixed(0)} | ${((f.mean / e.mean - 1) * 100).toFixed(0)}% | ${((f.rps / e.rps) * 100).toFixed(0)}% | ${a.p50} (${a.mean.toFixed(1)}) | ${a.rps.toFixed(0)} | ${((a.rps / e.rps) * 100).toFixed(0)}% |`,
        );
      rows.push(
        `| ${label[route]} | ${connections} | ${round + 1} | ${e.p50} / ${e.p99} (${e.mean.toFixed(1)}) | ${e.rps.toFixed(0)} | ${a.p50} / ${a.p99} (${a.mean.toFixed(1)}) | ${a.rps.toFixed(0)} | ` +
          `${((a.p50 / e.p50 - 1) * 100).toFixed(0)}% (mean ${((a.mean / e.mean - 1) * 100).toFixed(0)}%) | ${((a.rps / e.rps) * 100).toFixed(0)}% | ${a.non2xx + a.errors + e.non2xx + e.errors} / ${a.degraded} | ${e.load.replace('load ', '')} ; ${a.load.replace('load ', '')} |`,
      );
    }
  }
}

api.kill('SIGTERM');
await new Promise((r) => api.once('exit', r));
floorProc?.kill('SIGTERM');
if (ownIndex) await es.indices.delete({ index: indexNames(prefix).pattern }).catch(() => undefined);
await pool.end();
await es.close();
if (world.created) await world.drop();
pinning?.unpin();

console.log(`\n## bench:read-api ${new Date().toISOString()} (${world.dbName}, alias ${alias}; ${DURATION} s per run; ${topology()})`);
console.log(
  '| route | conns | round | ES p50 / p99 (mean) ms | ES req/s | API p50 / p99 (mean) ms | API req/s | API p50 over ES | API throughput of ES | non-2xx+errors / degraded | load ES ; API runs |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(r);
console.log('');
if (floorRows.length) {
  console.log('\nThe same Elasticsearch requests through bench/pass-through.ts (a proxy that parses nothing):');
  console.log(
    '| route | conns | round | ES p50 (mean) ms | ES req/s | pass-through p50 (mean) ms | pass-through req/s | pass-through mean over ES | pass-through throughput of ES | API p50 (mean) ms | API req/s | API throughput of ES |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of floorRows) console.log(r);
  console.log('');
}
for (const l of lines) console.log(l);
process.exit(0);
