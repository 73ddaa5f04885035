// The API's memory under mixed buyer reads: its resident size (RSS) and CPU while a closed loop of
// connections sends searches with random filters, product pages and 20-500 line cart lookups,
// then at idle; optionally a heap snapshot at the end, summarized (strings, large strings, the
// last-good cache's size as the API reports it).
//
//   . .stack/env && npm run bench:api-memory -- [--minutes 4] [--connections 8] [--node-flags=--max-old-space-size=256]
//       [--root DIR] [--label L] [--port 3137] [--idle-seconds 30] [--snapshot] [--seed 1]
//
// The API runs as its own process (`node [flags] --import tsx src/main.ts` in --root, this
// checkout by default: another checkout's API is measured the same way, side by side) on
// DATABASE_URL / ELASTICSEARCH_URL with the index of INDEX_PREFIX as it is (load a sample and
// build its index first), HEALTH_DETAILS=true, its log discarded. Requests are drawn from the
// database with a seeded generator, so two runs send the same requests in the same order.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPool } from '../src/db/pool.js';
import { loadEnv } from '../src/config/env.js';
import { load, pct, sleep } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    root: { type: 'string' },
    label: { type: 'string' },
    minutes: { type: 'string', default: '4' },
    connections: { type: 'string', default: '8' },
    'node-flags': { type: 'string', default: '' },
    port: { type: 'string', default: '3137' },
    'idle-seconds': { type: 'string', default: '30' },
    snapshot: { type: 'boolean', default: false },
    seed: { type: 'string', default: '1' },
  },
});
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(values.root ?? here);
const label = values.label ?? `${path.basename(root)} ${values['node-flags'] || '(default V8 flags)'}`;
const minutes = Number(values.minutes);
const connections = Number(values.connections);
const nodeFlags = values['node-flags']!.split(' ').filter((f) => f !== '');
const port = Number(values.port);
const base = `http://127.0.0.1:${port}`;
const log = (m: string) => console.error(`[bench:api-memory ${new Date().toISOString().slice(11, 19)}] ${m}`);
const env = loadEnv();

// ---- the requests, drawn with a seeded generator from what the database holds ----
let state = Number(values.seed) >>> 0 || 1;
const rand = () => {
  // mulberry32
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const pool = createPool(env.DATABASE_URL, 2);
const col = async (sql: string) => (await pool.query<{ v: string }>(sql)).rows.map((r) => String(r.v));
const products = (await col(`SELECT DISTINCT s.product_id AS v FROM listings l JOIN skus s USING (sku_id) ORDER BY 1 LIMIT 20000`)).map(Number);
const pairs = (await pool.query<{ seller_id: number; sku_id: number }>(`SELECT seller_id, sku_id FROM listings ORDER BY random() LIMIT 20000`)).rows;
const filters: Record<string, string[]> = {
  set: await col(`SELECT DISTINCT set_name AS v FROM products WHERE set_name IS NOT NULL`),
  category: await col(`SELECT DISTINCT category AS v FROM products WHERE category IS NOT NULL`),
  rarity: await col(`SELECT DISTINCT rarity AS v FROM products WHERE rarity IS NOT NULL`),
  condition: await col(`SELECT DISTINCT condition AS v FROM skus WHERE condition IS NOT NULL`),
  language: await col(`SELECT DISTINCT language AS v FROM skus WHERE language IS NOT NULL`),
  finish: await col(`SELECT DISTINCT finish AS v FROM skus WHERE finish IS NOT NULL`),
};
const words = [...new Set((await col(`SELECT name AS v FROM products ORDER BY product_id LIMIT 5000`)).flatMap((n) => n.split(/\s+/)))].filter(
  (w) => w.length >= 4,
);
await pool.end();
log(`${products.length} products, ${pairs.length} listings, ${filters.set!.length} sets, ${words.length} keywords to draw from`);

function nextRequest(): { url: string; init?: RequestInit } {
  const r = rand();
  if (r < 0.5) {
    const q = new URLSearchParams();
    const n = Math.floor(rand() * 4);
    for (let i = 0; i < n; i++) {
      const f = pick(Object.keys(filters));
      if (!q.has(f)) q.set(f, pick(filters[f]!));
    }
    if (rand() < 0.3) q.set('keyword', pick(words));
    if (rand() < 0.5) q.set('sort', 'name_desc');
    return { url: `${base}/search?${q}` };
  }
  if (r < 0.8) return { url: `${base}/products/${pick(products)}` };
  const n = 20 + Math.floor(rand() * 481);
  const lines = Array.from({ length: n }, () => {
    const p = pick(pairs);
    return { sellerId: p.seller_id, skuId: p.sku_id };
  });
  return { url: `${base}/lines/lookup`, init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lines }) } };
}

// ---- the API process ----
const TICK_MS = 10;
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const cpuMs = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(parts[11]) + Number(parts[12])) * TICK_MS;
};
const snapshotFlags = values.snapshot ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${path.join(here, '.stack')}`] : [];
const api = spawn(process.execPath, [...nodeFlags, ...snapshotFlags, '--import', 'tsx', 'src/main.ts'], {
  cwd: root,
  env: { ...process.env, PORT: String(port), HEALTH_DETAILS: 'true', SHUTDOWN_DRAIN_MS: '0' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const pid = api.pid!;
const stopApi = async () => {
  if (api.exitCode !== null) return;
  const exited = new Promise((r) => api.once('exit', r));
  api.kill('SIGTERM');
  await exited;
};
process.on('SIGINT', () => void stopApi().then(() => process.exit(130)));
process.on('exit', () => {
  if (api.exitCode === null) api.kill('SIGKILL');
});

for (let i = 0; ; i++) {
  if ((await fetch(`${base}/readyz`).catch(() => null))?.ok) break;
  if (i > 600) throw new Error('API not ready after 60 s');
  await sleep(100);
}
log(`${label}: API ready (pid ${pid}), RSS ${rssMb(pid).toFixed(0)} MB; ${connections} connections for ${minutes} min; ${load()}`);

const metric = async (name: string): Promise<number | null> => {
  const text = await (await fetch(`${base}/metrics`)).text();
  const m = new RegExp(`^${name} ([0-9.e+]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
};

// ---- the load, with RSS sampled every 5 s ----
const samples: { s: number; rss: number }[] = [];
const latencies: number[] = [];
let answered = 0;
let degraded = 0;
let failed = 0;
// How V8 holds the answers as strings: one byte a character, or two when any is beyond Latin-1.
const chars = { all: 0, twoByte: 0, answersTwoByte: 0, utf8: 0 };
const BEYOND_LATIN1 = /[\u0100-\uffff]/;
const t0 = performance.now();
const cpu0 = cpuMs(pid);
const end = t0 + minutes * 60_000;
const sampler = setInterval(() => samples.push({ s: (performance.now() - t0) / 1000, rss: rssMb(pid) }), 5000);
await Promise.all(
  Array.from({ length: connections }, async () => {
    while (performance.now() < end) {
      const { url, init } = nextRequest();
      const t = performance.now();
      try {
        const res = await fetch(url, init);
        const body = await res.text();
        latencies.push(performance.now() - t);
        if (res.status >= 500) failed += 1;
        else answered += 1;
        if (body.startsWith('{"success":true,"degraded":true')) degraded += 1;
        chars.all += body.length;
        chars.utf8 += Buffer.byteLength(body);
        if (BEYOND_LATIN1.test(body)) {
          chars.twoByte += body.length;
          chars.answersTwoByte += 1;
        }
      } catch {
        failed += 1;
      }
    }
  }),
);
clearInterval(sampler);
const loadSeconds = (performance.now() - t0) / 1000;
const cpuLoad = (cpuMs(pid) - cpu0) / 1000;
const cacheBytes = [await metric('degraded_cache_bytes'), await metric('degraded_warm_cache_bytes')];
const gcSeconds = await (async () => {
  const text = await (await fetch(`${base}/metrics`)).text();
  const sums = [...text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} ([0-9.e+-]+)$/gm)].map((m) => Number(m[1]));
  return sums.length > 0 ? sums.reduce((a, b) => a + b, 0) : null;
})();
const heapUsed = await metric('nodejs_heap_size_used_bytes');
const heapTotal = await metric('nodejs_heap_size_total_bytes');
const external = await metric('nodejs_external_memory_bytes');
const loadLine = load();

const rss = samples.map((s) => s.rss);
const lastMinute = samples.filter((s) => s.s >= loadSeconds - 60).map((s) => s.rss);
lastMinute.sort((a, b) => a - b);
latencies.sort((a, b) => a - b);
log(`RSS every 5 s (MB): ${rss.map((r) => r.toFixed(0)).join(' ')}`);

// ---- idle ----
const idleSeconds = Number(values['idle-seconds']);
await sleep(idleSeconds * 1000);
const idleRss = rssMb(pid);

let snapshotSummary = '';
if (values.snapshot) snapshotSummary = await heapSnapshot(pid);
await stopApi();

const mb = (b: number | null) => (b === null ? 'n/a' : `${(b / 1048576).toFixed(1)} MiB`);
console.log(
  [
    `## ${label}`,
    `- ${connections} connections, ${loadSeconds.toFixed(0)} s: ${answered} answers (${(answered / loadSeconds).toFixed(1)}/s), ${degraded} degraded, ${failed} failed; latency p50 ${pct(latencies, 0.5).toFixed(0)} ms, p99 ${pct(latencies, 0.99).toFixed(0)} ms`,
    `- RSS: start ${rss[0]?.toFixed(0)} MB, peak ${Math.max(...rss).toFixed(0)} MB, last minute median ${pct(lastMinute, 0.5).toFixed(0)} MB (max ${Math.max(...lastMinute).toFixed(0)}), after ${idleSeconds} s idle ${idleRss.toFixed(0)} MB`,
    `- API CPU: ${cpuLoad.toFixed(1)} s over the load (${((cpuLoad / loadSeconds) * 100).toFixed(0)}% of a core), ${((cpuLoad * 1000) / Math.max(1, answered)).toFixed(2)} ms per answer; GC since start ${gcSeconds === null ? 'n/a' : `${gcSeconds.toFixed(1)} s`}`,
    `- answers beyond Latin-1 (two bytes a character as JS strings): ${chars.answersTwoByte} of ${answered + failed} (${((100 * chars.twoByte) / Math.max(1, chars.all)).toFixed(0)}% of the characters); UTF-8 bytes / characters ${(chars.utf8 / Math.max(1, chars.all)).toFixed(3)}`,
    `- last-good cache as reported (general, warm): ${mb(cacheBytes[0] ?? null)}, ${mb(cacheBytes[1] ?? null)}; V8 heap used / total at the end of the load: ${mb(heapUsed)} / ${mb(heapTotal)}, external (Buffers) ${mb(external)}`,
    ...(snapshotSummary ? [snapshotSummary] : []),
    `- ${loadLine} (at the end of the load)`,
  ].join('\n'),
);

/** Writes a heap snapshot (SIGUSR2), reads it and says what its strings hold. */
async function heapSnapshot(apiPid: number): Promise<string> {
  const dir = path.join(here, '.stack');
  const before = new Set(readdirSync(dir));
  process.kill(apiPid, 'SIGUSR2');
  let file: string | undefined;
  for (let i = 0; i < 1200 && !file; i++) {
    await sleep(500);
    const found = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    // Written when its size stops changing.
    if (found) {
      const size = statSync(path.join(dir, found)).size;
      await sleep(2000);
      if (statSync(path.join(dir, found)).size === size && size > 0) file = found;
    }
  }
  if (!file) return '- heap snapshot: not written';
  const full = path.join(dir, file);
  const snap = JSON.parse(readFileSync(full, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
  };
  rmSync(full);
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const sizeAt = fields.indexOf('self_size');
  let total = 0;
  let strings = 0;
  let large = 0;
  let largeCount = 0;
  let native = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const size = snap.nodes[i + sizeAt]!;
    total += size;
    const type = types[snap.nodes[i + typeAt]!];
    if (type === 'native') native += size;
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
      strings += size;
      if (size >= 4096) {
        large += size;
        largeCount += 1;
      }
    }
  }
  const m = (b: number) => `${(b / 1048576).toFixed(1)} MiB`;
  return `- heap snapshot after ${idleSeconds} s idle: ${m(total)} live, of which ${m(native)} native (Buffer contents, outside the JS heap) and ${m(total - native)} JS heap: strings ${m(strings)}, of which ${largeCount} strings of 4 KiB or more ${m(large)}`;
}
