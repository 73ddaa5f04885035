// Storefront bench (npm run bench:storefront -- [options]): in Chromium, the time from a buyer's
// facet click or keyword submit to the new results painted, with the API's share beside it.
//
// Where the API comes from (first that applies):
//   --base URL               a running API (e.g. the demo's http://localhost:3000); nothing is started
//   --db NAME --prefix P     an existing loaded database on DATABASE_URL's server and its indexed alias
//                            (e.g. after `npm run sample -- --listings 2000000 --seed 3 --load` and
//                            `npm run reindex`: --db marketplace --prefix mp)
//   --listings N [--seed S]  a fresh database with the sample, indexed by a rebuild, both dropped after
// In the last two the API runs as its own process (`node --import tsx src/main.ts`, as in
// production, the warm set on), with a live indexer beside it (--indexer no: none) and, while
// measuring, listing price writes through PostgreSQL (--writes per second, default 5; each bump is
// undone before the end), so the index refreshes as it does in production; the measuring starts
// once the API has run its first complete warm pass (Degraded Mode's warm set), as a running API has.
//
// The measured actions come in episodes from the landing grid: a browse episode clicks 1-3 facet
// values (ticking, or unticking when three are ticked or nothing is left); a keyword episode
// submits a word of a product name seen in the landing grid, then clicks 1-2 facet values. Each
// time is the page's own User Timing measure (storefront/timing.ts): from the input event's
// timestamp to the first task after the frame that shows the new results; the API's share is the
// page's time from the request to the whole response body. An action whose page shows an error
// (a 503 when neither the index nor the fallbacks answer) is counted, not timed.
//   --actions N (200)  measured actions       --warm N (40) unmeasured actions first
//   --seed S (1)       the random walk's seed --screenshot FILE  the search page at the end (PNG)
//   --port P (3190)    API port when started   --json FILE  every action's figures
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Page } from 'playwright-core';
import { createPool, type Pool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { rebuild } from '../indexer/rebuild.js';
import { here, launchChromium, openStorefront, SCREENSHOT_DIR, settled } from '../test/support/browser.js';
import { prng } from '../test/support/scenario.js';
import { load, openWorld, pct, sleep, spawnIndexer, type World } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    base: { type: 'string' },
    db: { type: 'string' },
    prefix: { type: 'string' },
    listings: { type: 'string', default: '50000' },
    seed: { type: 'string', default: '1' },
    actions: { type: 'string', default: '200' },
    warm: { type: 'string', default: '40' },
    writes: { type: 'string', default: '5' },
    indexer: { type: 'string', default: 'yes' },
    port: { type: 'string', default: '3190' },
    screenshot: { type: 'string' },
    json: { type: 'string' },
  },
});

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (m: string) => console.error(`[bench:storefront] ${m}`);
const children: ChildProcess[] = [];
/** SIGTERM, once, to each child still running (an error or Ctrl-C must not leave the API running). */
const stopChildren = () => children.filter((c) => !c.killed && c.exitCode === null && c.signalCode === null).forEach((c) => c.kill('SIGTERM'));
process.once('exit', stopChildren);
process.once('SIGINT', () => process.exit(130));

// ---- the API ----
let base = values.base?.replace(/\/$/, '');
let world: World | null = null;
let pool: Pool | null = null;
let ownIndex: string | null = null;
let setup = `--base ${base}`;
if (!base) {
  world = await openWorld({ tag: 'storefront', db: values.db, listings: Number(values.listings), seed: Number(values.seed), log });
  pool = createPool(world.env.DATABASE_URL, 4);
  let prefix = values.prefix;
  if (prefix === undefined) {
    if (values.db) throw new Error('--db needs --prefix (the index alias of that database)');
    prefix = `bench-${randomBytes(3).toString('hex')}`;
    ownIndex = prefix;
    const es = createEsClient(world.env.ELASTICSEARCH_URL, 120_000);
    const t0 = performance.now();
    const r = await rebuild({ pool, es, index: indexNames(prefix), logger: createLogger('silent') });
    log(`indexed ${r.docs} docs behind ${indexNames(prefix).alias} in ${Math.round(performance.now() - t0)} ms`);
    await es.close();
  }
  const env = { DATABASE_URL: world.env.DATABASE_URL, ELASTICSEARCH_URL: world.env.ELASTICSEARCH_URL, INDEX_PREFIX: prefix };
  if (values.indexer !== 'no') {
    const { child } = spawnIndexer(root, env, log);
    children.push(child);
  }
  const api = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    // HEALTH_DETAILS: /metrics, to wait for the first warm pass.
    env: { ...process.env, ...env, PORT: values.port, RATE_LIMIT_PUBLIC_PER_MIN: '1000000000', LOG_LEVEL: 'warn', HEALTH_DETAILS: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(api);
  base = `http://127.0.0.1:${values.port}`;
  setup = `database ${world.dbName}, alias ${indexNames(prefix).alias}, API pid ${api.pid} on ${base}`;
}
for (let i = 0; ; i++) {
  try {
    const ready = await fetch(`${base}/readyz`);
    const landing = await fetch(`${base}/search?limit=1`);
    if (ready.status === 200 && landing.status === 200 && (await landing.json()).data.items.length > 0) break;
  } catch {
    /* not up yet */
  }
  if (i > 300) throw new Error(`no API with data at ${base}`);
  await sleep(500);
}
log(`${setup}; ${load()}`);
if (world) await firstWarmPass();

// ---- keywords: words of the product names of the landing grid and of each game's and set's grid ----
const rnd = prng(Number(values.seed));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
type Grid = { data: { items: { name: string | null }[]; facets: { category: { value: string }[]; set: { value: string }[] } } };
const grid = async (q: string): Promise<Grid | null> => {
  const res = await fetch(`${base}/search?limit=100${q}`);
  return res.ok ? ((await res.json()) as Grid) : null;
};
const landing = (await grid(''))!;
const slices = [
  '&sort=name_desc',
  ...landing.data.facets.category.map((f) => `&category=${encodeURIComponent(f.value)}`),
  ...landing.data.facets.set.slice(0, 20).map((f) => `&set=${encodeURIComponent(f.value)}`),
];
const words = new Set<string>();
// One at a time, as a buyer would: a burst could open the breaker before the measuring starts.
const grids = [landing];
for (const q of slices) grids.push((await grid(q)) ?? landing);
for (const g of grids) {
  for (const item of g.data.items) for (const w of (item.name ?? '').split(/[^\p{L}\p{N}]+/u)) if ([...w].length >= 4) words.add(w.toLowerCase());
}
const keywords = [...words];
log(`${keywords.length} keywords from ${slices.length + 1} grids`);

// ---- price writes while measuring ----
let writes = 0;
let writer: Promise<void> | null = null;
let writing = false;
if (pool && Number(values.writes) > 0) {
  const { rows: targets } = await pool.query<{ seller_id: number; sku_id: number }>(
    `SELECT seller_id, sku_id FROM listings TABLESAMPLE SYSTEM (1) WHERE deleted_at IS NULL LIMIT 2000`,
  );
  const bumped: { seller_id: number; sku_id: number }[] = [];
  const every = 1000 / Number(values.writes);
  const p = pool;
  writing = true;
  writer = (async () => {
    const bump = (t: { seller_id: number; sku_id: number }, by: number) =>
      p.query(`UPDATE listings SET price = price + $3, updated_at = clock_timestamp() WHERE seller_id = $1 AND sku_id = $2`, [t.seller_id, t.sku_id, by]);
    while (writing) {
      const restore = bumped.length > 0 && rnd() < 0.5;
      if (restore) await bump(bumped.shift()!, -1);
      else {
        const t = pick(targets);
        await bump(t, 1);
        bumped.push(t);
      }
      writes++;
      await sleep(every);
    }
    for (const t of bumped) await bump(t, -1);
  })();
}

// ---- the browser walk ----
interface Figure {
  kind: 'facet' | 'keyword';
  ms: number;
  apiMs: number;
  degraded: boolean;
  query: string;
  /** The page showed an error instead of results (no time then). */
  error?: string;
}

const browser = await launchChromium();
const { page } = await openStorefront(browser, base);
await page.goto('/');
await settled(page);

const measures = (p: Page) => p.evaluate(() => performance.getEntriesByName('storefront:search').length);

/** Runs a buyer action and returns the page's measure of it, once the URL's results show. */
async function act(kind: Figure['kind'], action: () => Promise<void>): Promise<Figure> {
  const before = await measures(page);
  const from = await here(page);
  await action();
  if ((await here(page)) === from) throw new Error(`the ${kind} action did not change the page (${from})`);
  try {
    await settled(page, 60_000);
  } catch (err) {
    const error = (err as Error).message;
    log(`error: ${error}`);
    return { kind, ms: NaN, apiMs: NaN, degraded: false, query: new URL(await here(page)).search, error };
  }
  await page.waitForFunction((n) => performance.getEntriesByName('storefront:search').length > n, before, { timeout: 60_000 });
  const m = await page.evaluate(() => {
    const e = performance.getEntriesByName('storefront:search').at(-1) as PerformanceMeasure;
    return { ms: e.duration, apiMs: (e.detail as { apiMs: number }).apiMs };
  });
  return {
    kind,
    ...m,
    degraded: (await page.locator('.banner[data-degraded="true"]').count()) > 0,
    query: new URL(await here(page)).search,
  };
}

/** Ticks a facet value, or unticks one (removes a filter) once three are ticked or nothing is left. */
async function facetClick(): Promise<Figure> {
  const chips = await page.$$('ul.chips a');
  const empty = (await page.locator('li.card').count()) === 0;
  if (chips.length >= 3 || (empty && chips.length > 0)) {
    const chip = pick(chips);
    return act('facet', () => chip.click());
  }
  // An unticked value, or a ticked checkbox (a ticked radio button does nothing when clicked).
  const input = pick(
    await page.$$('fieldset.facet[data-facet] input:not(:checked):not([value=""]), fieldset.facet[data-facet] input[type=checkbox]:checked'),
  );
  return act('facet', () => input.click());
}

async function keywordSubmit(): Promise<Figure> {
  const word = pick(keywords);
  await page.fill('#keyword', word);
  return act('keyword', () => page.press('#keyword', 'Enter'));
}

async function episode(): Promise<Figure[]> {
  // Back to the landing grid (not measured).
  if (new URL(await here(page)).search !== '') await act('facet', () => page.click('a.brand'));
  const out: Figure[] = [];
  if (rnd() < 0.4) {
    out.push(await keywordSubmit());
    for (let i = Math.floor(rnd() * 2) + 1; i > 0; i--) out.push(await facetClick());
  } else {
    for (let i = Math.floor(rnd() * 3) + 1; i > 0; i--) out.push(await facetClick());
  }
  return out;
}

const loadBefore = load();
log(`warm-up: ${values.warm} actions`);
for (let n = 0; n < Number(values.warm);) n += (await episode()).length;
log(`measuring ${values.actions} actions; ${load()}`);
const figures: Figure[] = [];
const t0 = performance.now();
while (figures.length < Number(values.actions)) figures.push(...(await episode()));
const seconds = (performance.now() - t0) / 1000;
const loadAfter = load();
writing = false;
await writer;

const shot = values.screenshot ?? path.join(SCREENSHOT_DIR, 'bench-search.png');
mkdirSync(path.dirname(shot), { recursive: true });
await page.goto('/?condition=Near%20Mint&language=English');
await settled(page);
// The images in view fail (no network here) and give way to their placeholders.
await page.waitForTimeout(500);
await page.screenshot({ path: shot });
await browser.close();

// ---- summary ----
const row = (label: string, all: Figure[]) => {
  const fs = all.filter((f) => !f.error);
  const ms = fs.map((f) => f.ms).sort((a, b) => a - b);
  const api = fs.map((f) => f.apiMs).sort((a, b) => a - b);
  const own = fs.map((f) => f.ms - f.apiMs).sort((a, b) => a - b);
  const r = (x: number) => Math.round(x).toLocaleString('en');
  return `| ${label} | ${fs.length} | ${r(pct(ms, 0.5))} / ${r(pct(ms, 0.9))} / ${r(pct(ms, 0.99))} / ${r(ms.at(-1) ?? NaN)} | ${r(pct(api, 0.5))} / ${r(pct(api, 0.99))} | ${r(pct(own, 0.5))} / ${r(pct(own, 0.99))} | ${(pct(api, 0.5) / pct(ms, 0.5)).toFixed(2)} | ${fs.filter((f) => f.degraded).length} | ${all.length - fs.length} |`;
};
const lines = [
  `storefront bench, ${new Date().toISOString()}: ${setup}`,
  `${figures.length} actions in ${seconds.toFixed(0)} s, ${pool ? `${writes} listing price writes (${values.writes}/s)` : 'no writes (--base: the bench has no database)'}; before: ${loadBefore}; after: ${loadAfter}`,
  '',
  '| action | n | action to painted p50 / p90 / p99 / max ms | API share p50 / p99 ms | page share p50 / p99 ms | API / total (p50) | degraded | errors |',
  '|---|---|---|---|---|---|---|---|',
  row('all', figures),
  row(
    'facet click',
    figures.filter((f) => f.kind === 'facet'),
  ),
  row(
    'keyword submit',
    figures.filter((f) => f.kind === 'keyword'),
  ),
  '',
  `slowest: ${figures
    .filter((f) => !f.error)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 3)
    .map((f) => `${Math.round(f.ms)} ms (API ${Math.round(f.apiMs)}) ${f.kind} ${f.query}`)
    .join('; ')}`,
  `screenshot: ${shot}`,
];
console.log(lines.join('\n'));
if (values.json) writeFileSync(values.json, JSON.stringify(figures, null, 1));

stopChildren();
await Promise.all(children.map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)));
await pool?.end();
if (world?.created) {
  if (ownIndex) {
    const es = createEsClient(world.env.ELASTICSEARCH_URL, 60_000);
    await es.indices.delete({ index: `${ownIndex}*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
    await es.close();
  }
  await sleep(500);
  await world.drop();
}
process.exit(0);

/**
 * The API this bench started is measured as production runs it: after its first complete warm
 * pass (the warm set in the last-good cache), which at 2,000,000 listings takes minutes.
 */
async function firstWarmPass(): Promise<void> {
  const t0 = performance.now();
  const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  for (let last = 0; ;) {
    const text = await (await fetch(`${base}/metrics`)).text();
    if (metric(text, 'degraded_warm_passes_total') >= 1) break;
    const s = (performance.now() - t0) / 1000;
    if (s > 900) {
      log('no complete warm pass after 900 s: measuring anyway');
      return;
    }
    if (s - last >= 15) {
      last = s;
      log(
        `waiting for the API's first warm pass: ${metric(text, 'degraded_warm_requests_total')} requests, ${metric(text, 'degraded_warm_failures_total')} failed, ${Math.round(s)} s`,
      );
    }
    await sleep(1000);
  }
  log(`first warm pass done in ${Math.round((performance.now() - t0) / 1000)} s; ${load()}`);
}
