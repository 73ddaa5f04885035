// The suggestion catalog of an API process (src/search/suggest/live-catalog.ts) on an indexed
// sample: how long reading every card takes, the heap it keeps, and the time of one suggestion
// answered from it in process (no HTTP, no other load): every 3-letter prefix, a half-typed last
// word and a typo of names drawn by their products, scoped and not, several passes.
//
//   . .stack/env && node --expose-gc --import tsx bench/suggest-catalog.ts [--prefix mp] [--names 400] [--passes 3] [--seed 7]
//   (npm run bench:suggest-catalog -- ... runs the same)
import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.js';
import { suggestQuerySchema } from '../src/contract/buyer.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { readCatalog } from '../src/search/suggest/live-catalog.js';
import { terms } from '../src/search/text.js';
import { load, pct } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    prefix: { type: 'string' },
    names: { type: 'string', default: '400' },
    passes: { type: 'string', default: '3' },
    seed: { type: 'string', default: '7' },
  },
});
const env = loadEnv();
const alias = indexNames(values.prefix ?? env.INDEX_PREFIX).alias;
const es = createEsClient(env.ELASTICSEARCH_URL, 120_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.error('(no --expose-gc: the heap figure includes garbage)');
const loadBefore = load();

gc?.();
const heap0 = process.memoryUsage().heapUsed;
const index = Object.keys(await es.indices.getAlias({ name: alias }))[0]!;
const t0 = performance.now();
const catalog = await readCatalog(es, index);
const readMs = performance.now() - t0;
gc?.();
const heapMb = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;

// Names drawn by their products (the names buyers meet), from the cards' own names.
const byName = new Map<string, number>();
catalog.suggest(suggestQuerySchema.parse({ q: 'a' })); // builds the trie, as the first suggestion does
gc?.();
const trieMb = (process.memoryUsage().heapUsed - heap0) / 2 ** 20 - heapMb;
let seed = Number(values.seed) >>> 0 || 1;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
const res = await es.search({
  index,
  size: 0,
  query: { term: { docType: 'card' } },
  aggs: { n: { terms: { field: 'nameKey', size: 5000, execution_hint: 'map' } } },
});
for (const b of (res.aggregations!.n as { buckets: { key: string; doc_count: number }[] }).buckets) byName.set(b.key, b.doc_count);
const pool = [...byName].flatMap(([name, n]) => Array<string>(Math.min(n, 50)).fill(name));
const cases: Record<string, string>[] = [];
for (let i = 0; i < Number(values.names); i++) {
  const ts = terms(pool[Math.floor(rnd() * pool.length)]!);
  const last = ts.at(-1)!;
  const long = ts.reduce((a, b) => (b.length > a.length ? b : a), '');
  const typo = long.length >= 5 ? ts.map((t) => (t === long ? t.slice(0, 1) + t.slice(2, 3) + t.slice(1, 2) + t.slice(3) : t)).join(' ') : ts.join(' ');
  const scope: Record<string, string> = i % 5 === 0 ? { category: 'Pokémon' } : {};
  cases.push(
    { q: ts[0]!.slice(0, 3), ...scope },
    { q: [...ts.slice(0, -1), last.slice(0, Math.max(3, Math.ceil(last.length / 2)))].join(' ') },
    { q: typo },
  );
}
const queries = cases.map((c) => suggestQuerySchema.parse(c));
const times: number[] = [];
for (let p = 0; p < Number(values.passes); p++) {
  for (const q of queries) {
    const s = performance.now();
    catalog.suggest(q);
    times.push(performance.now() - s);
  }
}
times.sort((a, b) => a - b);
console.log(`## bench:suggest-catalog ${new Date().toISOString()} (alias ${alias} = ${index}; ${loadBefore} -> ${load()})`);
console.log(`\n| cards | names | read every card | heap kept (+ its term trie) | suggestions | p50 / p99 / max ms |\n|---|---|---|---|---|---|`);
console.log(
  `| ${catalog.size} | ${catalog.names} | ${(readMs / 1000).toFixed(1)} s | ${gc ? `${heapMb.toFixed(0)} MiB (+ ${trieMb.toFixed(0)} MiB)` : '-'} | ${times.length} | ${pct(times, 0.5).toFixed(2)} / ${pct(times, 0.99).toFixed(2)} / ${times.at(-1)!.toFixed(2)} |`,
);
await es.close();
