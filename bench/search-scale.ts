// Search at marketplace scale: a fixed mix of distinct searches (the landing
// grid; every value of condition, language and checkoutMode; the five largest stores; two- and
// three-filter combinations; keywords with and without filters; both sorts; first pages and
// pages 21 deep), plus the product page of the busiest product, a 500-pair cart lookup and
// suggestions (GET /search/suggest: prefixes, typos and whole names of the most common names,
// scoped and not; their figures apart from the searches').
//
//   . .stack/env && npm run bench:search-scale -- [--prefix mp] [--api http://127.0.0.1:3000]
//       [--reps 2] [--reps8 1] [--warm 3] [--connections 1,8] [--only landing,condition] [--pg 1]
//       [--live-writes 0,20,100 [--settle 20]] [--overload 32]
//
// --live-writes R1,R2,...: the whole measurement once per rate, while a writer commits that many
// listing changes a second through PostgreSQL (bench/live-writes.ts) and the live indexer (a
// child process, from the saved checkpoint) carries them to the index; the commit-to-visible lag
// of a sample of the writes is reported beside. --settle: seconds of writes before measuring.
// --overload C (default 32, 0: none): after each rate's 8-connection run, the API alone at C
// connections: fresh (not degraded) answers a second against the 8-connection run's, the
// degraded and 503 answers (and how fast they came), and how long until /readyz is ready again.
// The last table sums each rate up in one row, the API beside raw Elasticsearch.
//
// --pg N: instead, the same reads through the PostgreSQL fallback (Degraded Mode's pgReads, one
// at a time, N passes, its statement timeout lifted so slow reads are timed, not cut off), with
// how many would exceed the fallback's own timeout (DEFAULT_PG_READS).
//
// Each search runs against Elasticsearch directly (the exact request the API's read code sends,
// captured from indexReads, with request_cache=false) for `took`, and through the API (its own
// process unless --api is given) for latency, 5xx and `degraded` answers. The index's request
// cache is switched off for the API runs too (index.requests.cache.enable=false, restored at the
// end): real traffic varies, repeats must not be answered from the cache. Closed loops of 1 and
// 8 connections over the whole mix, `reps` passes each (shuffled per pass, same seed).
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { indexReads } from '../src/search/index-reads.js';
import { DEFAULT_PG_READS, pgReads } from '../src/search/pg-reads.js';
import type { BuyerReads } from '../src/search/reads.js';
import { encodeSearchCursor } from '../src/search/cursor.js';
import { lookupBodySchema, productQuerySchema, searchQuerySchema, suggestQuerySchema } from '../src/contract/buyer.js';
import { terms } from '../src/search/text.js';
import { loadEnv } from '../src/config/env.js';
import { load, pct, sleep, spawnApi, spawnIndexer, type IndexerBatch } from './world.js';
import { lagLine, startLiveWrites, type LiveWritesResult } from './live-writes.js';
import { horizon, loadCheckpoint, saveCheckpoint } from '../src/db/feed-guard.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    prefix: { type: 'string' },
    api: { type: 'string' },
    reps: { type: 'string', default: '2' },
    reps8: { type: 'string', default: '1' },
    connections: { type: 'string', default: '1,8' },
    only: { type: 'string' },
    pg: { type: 'string' },
    /** Unmeasured passes through the API first (its JIT and the page cache warm, as a running server's are). */
    warm: { type: 'string', default: '3' },
    /** Skip the direct Elasticsearch runs at 8 connections (the API runs carry the 5xx/degraded answer). */
    es8: { type: 'boolean', default: true },
    /** Listing changes a second flowing while the mix runs, one measurement per rate (e.g. 0,20,100). */
    'live-writes': { type: 'string' },
    /** Seconds of writes before a rate's measurement starts. */
    settle: { type: 'string', default: '20' },
    /** Connections of the overload run through the API after each rate's 8-connection run (0: none). */
    overload: { type: 'string', default: '32' },
  },
});
const env = loadEnv();
const prefix = values.prefix ?? env.INDEX_PREFIX;
const alias = indexNames(prefix).alias;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (m: string) => console.error(`[bench:search-scale ${new Date().toISOString().slice(11, 19)}] ${m}`);
const pool = createPool(env.DATABASE_URL, 2);
const es = createEsClient(env.ELASTICSEARCH_URL, 120_000);
const esUrl = new URL(env.ELASTICSEARCH_URL);
const esBase = `${esUrl.protocol}//${esUrl.host}`;

// ---- the fixed mix ----
type Raw = Record<string, string>;
interface Case {
  group: string;
  raw: Raw;
  /** Page 21 (20 pages of the default 24 skipped) instead of the first. */
  deep?: boolean;
}
const q1 = async (sql: string) => (await pool.query(sql)).rows;
const stores = (await q1(`SELECT s.seller_code FROM listings l JOIN sellers s USING (seller_id) GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 5`)).map((r) =>
  String(r.seller_code),
);
const languages = (await q1(`SELECT language FROM skus WHERE language IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1`)).map((r) => String(r.language));
const conditions = (await q1(`SELECT condition FROM skus WHERE condition IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1`)).map((r) =>
  String(r.condition),
);
const busiest = Number(
  (await q1(`SELECT s.product_id FROM listings l JOIN skus s USING (sku_id) GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 1`))[0]!.product_id,
);
const cartPairs = await q1(`SELECT seller_id, sku_id FROM listings ORDER BY seller_id, sku_id LIMIT 500 OFFSET 1000`);
const commonNames = (await q1(`SELECT name FROM products WHERE name IS NOT NULL GROUP BY 1 ORDER BY count(*) DESC, 1 LIMIT 8`)).map((r) => String(r.name));

/** What buyers type: a name's first 3 letters, the name with its last word half typed, a typo (a swap) in its longest word. */
function suggestCases(): Raw[] {
  const out: Raw[] = [];
  for (const [i, name] of commonNames.entries()) {
    const ts = terms(name);
    const last = ts.at(-1) ?? '';
    out.push({ q: ts[0]!.slice(0, 3) });
    out.push({ q: [...ts.slice(0, -1), last.slice(0, Math.max(3, Math.ceil(last.length / 2)))].join(' ') });
    const long = ts.reduce((a, b) => (b.length > a.length ? b : a), '');
    if (long.length >= 5) out.push({ q: ts.map((t) => (t === long ? t.slice(0, 1) + t.slice(2, 3) + t.slice(1, 2) + t.slice(3) : t)).join(' ') });
    if (i === 0) out.push({ q: name }, { q: ts[0]!.slice(0, 4), category: 'Pokémon' }, { q: ts[0]!.slice(0, 4), sellerCode: stores[0]! });
  }
  return out;
}

const allCases: Case[] = [
  { group: 'landing', raw: {} as Raw },
  { group: 'landing', raw: { sort: 'name_desc' } },
  ...conditions.map((condition) => ({ group: 'condition', raw: { condition } })),
  ...languages.map((language) => ({ group: 'language', raw: { language } })),
  { group: 'checkoutMode', raw: { checkoutMode: 'express' } },
  { group: 'checkoutMode', raw: { checkoutMode: 'manual' } },
  ...stores.map((sellerCode) => ({ group: 'store', raw: { sellerCode } })),
  { group: 'two filters', raw: { condition: 'Near Mint', language: 'English' } },
  { group: 'two filters', raw: { condition: 'Lightly Played', language: 'Japanese' } },
  { group: 'two filters', raw: { category: 'Pokémon', finish: 'Holofoil' } },
  { group: 'two filters', raw: { checkoutMode: 'express', condition: 'Near Mint' } },
  { group: 'two filters', raw: { sellerCode: stores[0]!, condition: 'Near Mint' } },
  { group: 'two filters', raw: { category: 'Magic: The Gathering', condition: 'Near Mint', sort: 'name_desc' } },
  { group: 'three filters', raw: { condition: 'Near Mint', language: 'English', finish: 'Non-Foil' } },
  { group: 'three filters', raw: { category: 'Pokémon', condition: 'Near Mint', language: 'Japanese' } },
  { group: 'three filters', raw: { sellerCode: stores[1]!, condition: 'Lightly Played', language: 'English' } },
  { group: 'three filters', raw: { checkoutMode: 'express', language: 'English', finish: 'Foil', sort: 'name_desc' } },
  { group: 'keyword', raw: { keyword: 'dragon' } },
  { group: 'keyword', raw: { keyword: 'dark knight' } },
  { group: 'keyword', raw: { keyword: 'dragon', sort: 'name_desc' } },
  { group: 'keyword + filters', raw: { keyword: 'dragon', condition: 'Near Mint' } },
  { group: 'keyword + filters', raw: { keyword: 'dragon', category: 'Magic: The Gathering', language: 'English' } },
  { group: 'keyword + filters', raw: { keyword: 'shadow', sellerCode: stores[0]! } },
  { group: 'page 21', raw: {} as Raw, deep: true },
  { group: 'page 21', raw: { sort: 'name_desc' }, deep: true },
  { group: 'page 21', raw: { condition: 'Near Mint' }, deep: true },
  { group: 'page 21', raw: { checkoutMode: 'express' }, deep: true },
  { group: 'page 21', raw: { condition: 'Near Mint', language: 'English', sort: 'name_desc' }, deep: true },
  { group: 'page 21', raw: { sellerCode: stores[0]! }, deep: true },
];
const cases = allCases.filter((c) => values.only === undefined || values.only.split(',').includes(c.group));

// ---- each buyer request as the API sends it to Elasticsearch (captured from indexReads) ----
interface Req {
  group: string;
  label: string;
  apiMethod: 'GET' | 'POST';
  apiPath: string;
  apiBody?: string;
  /**
   * The Elasticsearch requests the read sends, in waves: the requests of one wave were sent before
   * any of them was answered (the cart's two _mgets), waves one after the other (the product
   * page's _msearch, then its sellers' _mget).
   */
  es: EsRequest[][];
  /** The same read through a BuyerReads (the PostgreSQL fallback for --pg). */
  read: (r: BuyerReads) => Promise<unknown>;
}
interface EsRequest {
  method: string;
  path: string;
  body: string;
  contentType: string;
}
const captureEs = createEsClient(env.ELASTICSEARCH_URL, 120_000);
let captured: EsRequest[][] = [];
let answered = true;
captureEs.diagnostic.on('request', (err, result) => {
  if (err || !result) return;
  const p = result.meta.request.params;
  const qs = new URLSearchParams(typeof p.querystring === 'string' ? p.querystring : '');
  if (p.path.endsWith('/_search')) qs.set('request_cache', 'false');
  const s = qs.toString();
  const headers = p.headers ?? {};
  if (answered || captured.length === 0) captured.push([]);
  answered = false;
  captured.at(-1)!.push({
    method: p.method,
    path: `${p.path}${s ? `?${s}` : ''}`,
    body: typeof p.body === 'string' ? p.body : String(p.body ?? ''),
    contentType: String(headers['content-type'] ?? 'application/json'),
  });
});
captureEs.diagnostic.on('response', () => {
  answered = true;
});
const reads = indexReads(captureEs, alias);
const take = () => {
  const c = captured;
  captured = [];
  answered = true;
  if (c.length === 0) throw new Error('no Elasticsearch request captured');
  return c;
};
const qsOf = (o: Raw) => {
  const s = new URLSearchParams(o).toString();
  return s ? `?${s}` : '';
};

const reqs: Req[] = [];
const t0 = performance.now();
for (const c of cases) {
  let raw = c.raw;
  let after: string | null = null;
  if (c.deep) {
    // The sort key of the 480th product: the cursor page 20 of 24 hands out.
    const q = searchQuerySchema.parse(c.raw);
    const page = await reads.search({ ...q, limit: 20 * q.limit }, null);
    take();
    if (page.nextAfter === null) throw new Error(`${JSON.stringify(c.raw)}: fewer than ${20 * q.limit} products`);
    after = page.nextAfter;
    raw = { ...c.raw, cursor: encodeSearchCursor(env.CURSOR_SECRET, q.sort, after) };
  }
  const q = searchQuerySchema.parse(raw);
  await reads.search(q, after);
  reqs.push({
    group: c.group,
    label: `${c.deep ? 'page 21 ' : ''}${JSON.stringify(c.raw)}`,
    apiMethod: 'GET',
    apiPath: `/search${qsOf(raw)}`,
    es: take(),
    read: (r) => r.search(q, after),
  });
}
if (values.only === undefined || values.only.split(',').includes('product page')) {
  const q = productQuerySchema.parse({});
  await reads.productPage(busiest, q);
  reqs.push({
    group: 'product page',
    label: `busiest product ${busiest}`,
    apiMethod: 'GET',
    apiPath: `/products/${busiest}`,
    es: take(),
    read: (r) => r.productPage(busiest, q),
  });
}
if (values.only === undefined || values.only.split(',').includes('cart 500')) {
  const lines = cartPairs.map((r) => ({ sellerId: Number(r.seller_id), skuId: Number(r.sku_id) }));
  const body = lookupBodySchema.parse({ lines });
  await reads.lookup(body);
  reqs.push({
    group: 'cart 500',
    label: '500-pair lookup',
    apiMethod: 'POST',
    apiPath: '/lines/lookup',
    apiBody: JSON.stringify({ lines }),
    es: take(),
    read: (r) => r.lookup(body),
  });
}
if (values.only === undefined || values.only.split(',').includes('suggest')) {
  for (const raw of suggestCases()) {
    const q = suggestQuerySchema.parse(raw);
    await reads.suggest(q);
    reqs.push({
      group: 'suggest',
      label: `suggest ${JSON.stringify(raw)}`,
      apiMethod: 'GET',
      apiPath: `/search/suggest${qsOf(raw)}`,
      es: take(),
      read: (r) => r.suggest(q),
    });
  }
}
await captureEs.close();
const searches = reqs.filter((r) => r.apiPath.startsWith('/search?') || r.apiPath === '/search');
log(
  `mix: ${searches.length} distinct searches (${new Set(searches.map((r) => r.apiPath)).size} distinct URLs) + ${reqs.length - searches.length} other reads; prepared in ${Math.round(performance.now() - t0)} ms; ${load()}`,
);

// ---- --pg: the PostgreSQL fallback's cost for the same reads, then exit ----
if (values.pg !== undefined) {
  const budget = DEFAULT_PG_READS.statementTimeoutMs;
  const pgPool = createPool(env.DATABASE_URL, 2);
  const fallback = pgReads(pgPool, { statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  const byGroup = new Map<string, number[]>();
  const rows: string[] = [];
  const loadStart = load();
  for (let pass = 0; pass < Number(values.pg); pass++) {
    for (const r of reqs) {
      const started = performance.now();
      await r.read(fallback);
      const ms = performance.now() - started;
      byGroup.set(r.group, [...(byGroup.get(r.group) ?? []), ms]);
      rows.push(`| ${r.label} | ${Math.round(ms)} |`);
      log(`pg ${r.label}: ${Math.round(ms)} ms`);
    }
  }
  const all = [...byGroup].filter(([g]) => !['product page', 'cart 500', 'suggest'].includes(g)).flatMap(([, v]) => v);
  console.log(`## bench:search-scale --pg ${new Date().toISOString()}: the PostgreSQL fallback, one read at a time (${loadStart} -> ${load()})`);
  console.log(`| group | reads | wall p50 / p99 ms | over the fallback's ${budget} ms statement timeout |\n|---|---|---|---|`);
  for (const [g, v] of [...byGroup, ['all searches', all] as [string, number[]]]) {
    const sorted = [...v].sort((a, b) => a - b);
    console.log(`| ${g} | ${v.length} | ${Math.round(pct(sorted, 0.5))} / ${Math.round(pct(sorted, 0.99))} | ${v.filter((ms) => ms > budget).length} |`);
  }
  console.log('\n| read | wall ms |\n|---|---|');
  for (const l of rows) console.log(l);
  await pgPool.end();
  await pool.end();
  await es.close();
  process.exit(0);
}

// ---- the API ----
let apiBase = values.api;
let api: ChildProcess | null = null;
if (apiBase === undefined) {
  // Suggestions are measured as a running API answers them: from its catalog once read
  // (SUGGEST_CATALOG=false in the environment measures the index path instead).
  const spawned = await spawnApi(root, { INDEX_PREFIX: prefix, RATE_LIMIT_PUBLIC_PER_MIN: '1000000000' });
  api = spawned.child;
  apiBase = spawned.base;
  process.once('exit', () => api?.kill('SIGTERM'));
  log(`API (pid ${api.pid}) on ${apiBase}, alias ${alias}`);
  if (spawned.catalogMs !== null) log(`suggestion catalog current after ${(spawned.catalogMs / 1000).toFixed(1)} s`);
}

// ---- request cache off for the API's requests too (restored at the end) ----
const concrete = Object.keys(await es.indices.getAlias({ name: alias }));
const before = await es.indices.getSettings({ index: concrete.join(','), name: 'index.requests.cache.enable', include_defaults: true });
const restore = Object.fromEntries(
  concrete.map((i) => [i, (before[i]?.settings as Record<string, unknown> | undefined)?.['index.requests.cache.enable'] ?? null]),
);
const setCache = async (v: unknown) => {
  for (const i of concrete) await es.indices.putSettings({ index: i, settings: { 'index.requests.cache.enable': v as string | null } });
};
await setCache(false);
let restored = false;
const restoreCache = async () => {
  if (restored) return;
  restored = true;
  for (const i of concrete) await es.indices.putSettings({ index: i, settings: { 'index.requests.cache.enable': (restore[i] as string | null) ?? null } });
};
process.once('SIGINT', () => void restoreCache().finally(() => process.exit(130)));

// ---- closed loops ----
interface Sample {
  group: string;
  label: string;
  ms: number;
  took: number | null;
  status: number;
  degraded: boolean;
}
let seed = 14;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
function passes(n: number): Req[] {
  const out: Req[] = [];
  for (let i = 0; i < n; i++) {
    const p = [...reqs];
    for (let j = p.length - 1; j > 0; j--) {
      const k = Math.floor(rnd() * (j + 1));
      [p[j], p[k]] = [p[k]!, p[j]!];
    }
    out.push(...p);
  }
  return out;
}

async function sendEs(r: Req): Promise<Sample> {
  const started = performance.now();
  let took: number | null = null;
  let status = 200;
  for (const wave of r.es) {
    const answers = await Promise.all(
      wave.map(async (q) => {
        // Elasticsearch 9 refuses a compatible-with content type without the matching Accept.
        const res = await fetch(esBase + q.path, {
          method: q.method,
          body: q.body || undefined,
          headers: { 'content-type': q.contentType, accept: q.contentType },
        });
        return { status: res.status, text: await res.text() };
      }),
    );
    for (const a of answers) {
      if (a.status !== 200) status = a.status;
      const t = /^\{"took":(\d+)/.exec(a.text)?.[1];
      if (t !== undefined) took = (took ?? 0) + Number(t);
    }
  }
  return { group: r.group, label: r.label, ms: performance.now() - started, took, status, degraded: false };
}
async function sendApi(r: Req): Promise<Sample> {
  const started = performance.now();
  try {
    const res = await fetch(apiBase + r.apiPath, {
      method: r.apiMethod,
      body: r.apiBody,
      headers: r.apiBody ? { 'content-type': 'application/json' } : {},
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    return {
      group: r.group,
      label: r.label,
      ms: performance.now() - started,
      took: null,
      status: res.status,
      degraded: text.startsWith('{"success":true,"degraded":true'),
    };
  } catch {
    return { group: r.group, label: r.label, ms: performance.now() - started, took: null, status: 0, degraded: false };
  }
}
/** Waits (at most 60 s) until the API's /readyz says `ready` (breaker closed); the ms waited. */
async function untilReady(): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    try {
      const text = await (await fetch(`${apiBase}/readyz`)).text();
      if (text.includes('"status":"ready"')) return Date.now() - started;
    } catch {
      /* not answering yet */
    }
    await sleep(250);
  }
  throw new Error('API not ready (breaker still open?) after 60 s');
}
async function loop(list: Req[], connections: number, send: (r: Req) => Promise<Sample>): Promise<{ samples: Sample[]; secs: number }> {
  let next = 0;
  const samples: Sample[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < list.length) samples.push(await send(list[next++]!));
    }),
  );
  return { samples, secs: (performance.now() - started) / 1000 };
}

const groups = [...new Set(reqs.map((r) => r.group))];
const fmt = (xs: number[]) => {
  if (xs.length === 0) return '-';
  const s = [...xs].sort((a, b) => a - b);
  return `${Math.round(pct(s, 0.5))} / ${Math.round(pct(s, 0.99))}`;
};
const isSearch = (s: Sample) => !['product page', 'cart 500', 'suggest'].includes(s.group);
const isSuggest = (s: Sample) => s.group === 'suggest';
const failed5xx = (s: Sample) => s.status >= 500 || s.status === 0;
const fresh = (s: Sample) => s.status === 200 && !s.degraded;
/** The rounded quantile `q` of unsorted samples; NaN for none. */
const quantile = (q: number) => (xs: number[]) =>
  xs.length
    ? Math.round(
        pct(
          [...xs].sort((a, b) => a - b),
          q,
        ),
      )
    : NaN;
const p99 = quantile(0.99);
const p50 = quantile(0.5);

/** One row of the summary table: a write rate's figures, API beside raw Elasticsearch. */
interface RateRow {
  rate: number;
  c1: {
    esSearchP99: number;
    apiSearchP99: number;
    productP99: number;
    cartP50: number;
    esProductP99: number;
    esCartP50: number;
    apiSuggestP99: number;
    esSuggestP99: number;
  };
  c8: {
    esSearchP99: number;
    apiSearchP99: number;
    api5xx: number;
    apiDegraded: number;
    searches: number;
    apiSuggestP99: number;
    esSuggestP99: number;
    suggest5xx: number;
    suggests: number;
  };
  over: {
    connections: number;
    freshPerSec: number;
    freshPerSec8: number;
    freshP99: number;
    /** p99 of the answers that were not fresh (degraded or 503): shed load must be answered fast. */
    shedP99: number;
    degraded: number;
    unavailable: number;
    other5xx: number;
    total: number;
    readyMs: number;
  } | null;
  lag: LiveWritesResult | null;
  load: string;
}
const out: string[] = [];
const worst: string[] = [];
const rows: RateRow[] = [];
const connectionsList = values.connections.split(',').map(Number);
const overload = Number(values.overload);
const rates = values['live-writes'] === undefined ? [0] : values['live-writes'].split(',').map(Number);
let indexer: ChildProcess | null = null;
/** The live indexer's batches as it logs them (how long each took is most of the lag's tail). */
let batches: IndexerBatch[] = [];

/** The mix at 1 and 8 connections (and the overload run) while `rate` listing changes a second flow. */
async function measure(rate: number, first: boolean): Promise<void> {
  const row: RateRow = {
    rate,
    c1: { esSearchP99: NaN, apiSearchP99: NaN, productP99: NaN, cartP50: NaN, esProductP99: NaN, esCartP50: NaN, apiSuggestP99: NaN, esSuggestP99: NaN },
    c8: { esSearchP99: NaN, apiSearchP99: NaN, api5xx: 0, apiDegraded: 0, searches: 0, apiSuggestP99: NaN, esSuggestP99: NaN, suggest5xx: 0, suggests: 0 },
    over: null,
    lag: null,
    load: '',
  };
  const writes = rate > 0 ? await startLiveWrites({ databaseUrl: env.DATABASE_URL, pool, es, alias, rate, log }) : null;
  const firstBatch = batches.length;
  try {
    // Steady state first: the indexer's batches, the refreshes and merges the writes cause.
    if (writes) await sleep(Number(values.settle) * 1000);
    let apiFresh8 = NaN;
    for (const c of connectionsList) {
      const n = Number(c === 1 ? values.reps : values.reps8);
      // warm: passes through the API at 1 connection (JIT, page cache), not measured
      if (first && c === connectionsList[0]) await loop(passes(Number(values.warm)), 1, sendApi);
      const loadEsStart = load();
      const e = values.es8 || c === 1 ? await loop(passes(n), c, sendEs) : { samples: [], secs: 0 };
      const loadEs = load();
      // The direct pass may have opened the API's breaker (its cluster watcher probes the same
      // node): measure the API from a closed breaker, not from the direct pass's after-effects.
      const readyMs = await untilReady();
      const a = await loop(passes(n), c, sendApi);
      const loadApi = load();
      const esFailed = e.samples.filter((s) => s.status !== 200);
      if (esFailed.length > 0) log(`${esFailed.length} Elasticsearch requests failed, e.g. ${esFailed[0]!.label}: HTTP ${esFailed[0]!.status}`);
      log(
        `rate ${rate}/s c=${c}: ES pass ${e.secs.toFixed(0)} s (${loadEsStart} -> ${loadEs}), API ready after ${readyMs} ms, API pass ${a.secs.toFixed(0)} s (${loadApi})`,
      );
      out.push(
        `\n### ${rate} listing changes/s, ${c} connection${c === 1 ? '' : 's'}, ${n} pass${n === 1 ? '' : 'es'} over the mix (ES: ${loadEs}; API: ${loadApi})`,
      );
      out.push('| group | searches | ES took p50 / p99 ms | API p50 / p99 ms | API 5xx | API degraded | other non-2xx |');
      out.push('|---|---|---|---|---|---|---|');
      for (const g of [...groups, 'all searches']) {
        // 'all searches' is GET /search alone (suggest has its own row).
        const inG = (s: Sample) => (g === 'all searches' ? isSearch(s) : s.group === g);
        const es1 = e.samples.filter(inG);
        const api1 = a.samples.filter(inG);
        const tooks = es1.map((s) => s.took).filter((t): t is number => t !== null);
        out.push(
          `| ${g} | ${new Set(api1.map((s) => s.label)).size} | ${tooks.length ? fmt(tooks) : `(${fmt(es1.map((s) => s.ms))} wall)`} | ${fmt(api1.map((s) => s.ms))} | ${api1.filter(failed5xx).length} | ${api1.filter((s) => s.degraded).length} | ${api1.filter((s) => s.status !== 200 && s.status < 500 && s.status !== 0).length} |`,
        );
      }
      const esSearch = e.samples.filter(isSearch).map((s) => s.ms);
      const apiSearch = a.samples.filter(isSearch);
      if (c === 1) {
        row.c1 = {
          esSearchP99: p99(esSearch),
          apiSearchP99: p99(apiSearch.map((s) => s.ms)),
          productP99: p99(a.samples.filter((s) => s.group === 'product page').map((s) => s.ms)),
          cartP50: p50(a.samples.filter((s) => s.group === 'cart 500').map((s) => s.ms)),
          esProductP99: p99(e.samples.filter((s) => s.group === 'product page').map((s) => s.ms)),
          esCartP50: p50(e.samples.filter((s) => s.group === 'cart 500').map((s) => s.ms)),
          apiSuggestP99: p99(a.samples.filter(isSuggest).map((s) => s.ms)),
          esSuggestP99: p99(e.samples.filter(isSuggest).map((s) => s.ms)),
        };
        const byLabel = new Map<string, number[]>();
        for (const s of e.samples) if (s.took !== null) byLabel.set(s.label, [...(byLabel.get(s.label) ?? []), s.took]);
        worst.push(`\n${rate} listing changes/s:`);
        for (const [l, t] of [...byLabel].sort((x, y) => Math.max(...y[1]) - Math.max(...x[1])).slice(0, 8)) worst.push(`| ${l} | ${t.join(' ')} |`);
      } else {
        row.c8 = {
          esSearchP99: p99(esSearch),
          apiSearchP99: p99(apiSearch.map((s) => s.ms)),
          api5xx: apiSearch.filter(failed5xx).length,
          apiDegraded: apiSearch.filter((s) => s.degraded).length,
          searches: apiSearch.length,
          apiSuggestP99: p99(a.samples.filter(isSuggest).map((s) => s.ms)),
          esSuggestP99: p99(e.samples.filter(isSuggest).map((s) => s.ms)),
          suggest5xx: a.samples.filter((s) => isSuggest(s) && failed5xx(s)).length,
          suggests: a.samples.filter(isSuggest).length,
        };
        apiFresh8 = a.samples.filter(fresh).length / a.secs;
      }
    }
    if (overload > 0) {
      // Past capacity: the API alone, overload connections for the same number of requests per
      // connection as the 8-connection run made; then how long until it answers normally again.
      await untilReady();
      const list = passes(Math.max(1, Math.round((Number(values.reps8) * overload) / 8)));
      const o = await loop(list, overload, sendApi);
      const afterAt = performance.now();
      const readyMs = await untilReady();
      const back = Math.round(performance.now() - afterAt);
      const freshOnes = o.samples.filter(fresh);
      row.over = {
        connections: overload,
        freshPerSec: freshOnes.length / o.secs,
        freshPerSec8: apiFresh8,
        freshP99: p99(freshOnes.filter(isSearch).map((s) => s.ms)),
        shedP99: p99(o.samples.filter((s) => !fresh(s)).map((s) => s.ms)),
        degraded: o.samples.filter((s) => s.degraded).length,
        unavailable: o.samples.filter((s) => s.status === 503).length,
        other5xx: o.samples.filter((s) => failed5xx(s) && s.status !== 503).length,
        total: o.samples.length,
        readyMs: Math.max(readyMs, back),
      };
      log(
        `rate ${rate}/s c=${overload}: ${o.samples.length} answers in ${o.secs.toFixed(0)} s: ${freshOnes.length} fresh (${row.over.freshPerSec.toFixed(1)}/s; 8 connections: ${apiFresh8.toFixed(1)}/s), ` +
          `${row.over.degraded} degraded, ${row.over.unavailable} 503, ${row.over.other5xx} other 5xx; fresh search p99 ${row.over.freshP99} ms, the others p99 ${row.over.shedP99} ms; ready again after ${readyMs} ms (${load()})`,
      );
    }
  } finally {
    if (writes) {
      row.lag = await writes.stop();
      log(`rate ${rate}/s: ${lagLine(row.lag)}`);
      const b = batches.slice(firstBatch);
      const ms = b.map((x) => x.ms).sort((x, y) => x - y);
      const changes = b.map((x) => x.changes).sort((x, y) => x - y);
      log(
        `rate ${rate}/s: ${b.length} indexer batches, ms p50 ${pct(ms, 0.5).toFixed(0)} / p99 ${pct(ms, 0.99).toFixed(0)} / max ${pct(ms, 1).toFixed(0)}, changes p50 ${pct(changes, 0.5)} / max ${pct(changes, 1)}`,
      );
    }
  }
  row.load = load();
  rows.push(row);
}

try {
  if (rates.some((r) => r > 0)) {
    // The live indexer carries the writes: from the saved checkpoint, or from now when none is.
    if (!(await loadCheckpoint(pool, 'live'))) await saveCheckpoint(pool, 'live', await horizon(pool));
    ({ child: indexer, batches } = spawnIndexer(
      root,
      { DATABASE_URL: env.DATABASE_URL, ELASTICSEARCH_URL: env.ELASTICSEARCH_URL, INDEX_PREFIX: prefix },
      log,
    ));
    await sleep(3000);
  }
  for (let i = 0; i < rates.length; i++) await measure(rates[i]!, i === 0);
} finally {
  await restoreCache();
  api?.kill('SIGTERM');
  if (indexer) {
    indexer.kill('SIGTERM');
    await new Promise((r) => indexer!.once('exit', r));
  }
}
console.log(`## bench:search-scale ${new Date().toISOString()} (alias ${alias} = ${concrete.join(', ')}; request cache off)`);
const n = (x: number) => (Number.isNaN(x) ? '-' : `${x}`);
console.log(
  '\n| changes/s | 1 conn: search p99 API (ES) | product page p99 API (ES) | 500-pair lookup p50 API (ES) | 8 conn: search p99 API (ES), 5xx, degraded | ' +
    `${overload} conn: fresh/s (8 conn), fresh p99, degraded, 503 (their p99), other 5xx, back to ready | suggest p99 API (ES): 1 conn; 8 conn, 5xx | commit-to-visible p50 / p99 | load |`,
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const o = r.over;
  console.log(
    `| ${r.rate} | ${n(r.c1.apiSearchP99)} (${n(r.c1.esSearchP99)}) | ${n(r.c1.productP99)} (${n(r.c1.esProductP99)}) | ${n(r.c1.cartP50)} (${n(r.c1.esCartP50)}) | ` +
      `${n(r.c8.apiSearchP99)} (${n(r.c8.esSearchP99)}), ${r.c8.api5xx} of ${r.c8.searches}, ${r.c8.apiDegraded} | ` +
      `${o ? `${o.freshPerSec.toFixed(1)} (${o.freshPerSec8.toFixed(1)}), ${n(o.freshP99)} ms, ${o.degraded}, ${o.unavailable} (${n(o.shedP99)} ms), ${o.other5xx} of ${o.total}, ${o.readyMs} ms` : '-'} | ` +
      `${n(r.c1.apiSuggestP99)} (${n(r.c1.esSuggestP99)}); ${n(r.c8.apiSuggestP99)} (${n(r.c8.esSuggestP99)}), ${r.c8.suggest5xx} of ${r.c8.suggests} | ` +
      `${r.lag ? `${n(Math.round(pct(r.lag.lagMs, 0.5)))} / ${n(Math.round(pct(r.lag.lagMs, 0.99)))} ms (${r.lag.lagMs.length} sampled, ${r.lag.neverSeen} unseen; ${r.lag.checked - r.lag.differ} of ${r.lag.checked} changed listings equal PostgreSQL)` : '-'} | ${r.load} |`,
  );
}
for (const l of out) console.log(l);
console.log('\nSlowest searches at 1 connection (Elasticsearch `took` of each run, ms):\n| search | took |\n|---|---|');
for (const l of worst) console.log(l);
await pool.end();
await es.close();
process.exit(0);
