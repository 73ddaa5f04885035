// Measures and checks the candidate models of docs/search-scale.md against the current path:
// Elasticsearch `took` (request cache off) of the same searches, first page and 20 pages deep, and
// equality of items and facets with an exact in-memory reference built from the nested documents.
//
//   . .stack/env && nice -n 19 node --max-old-space-size=4096 --import tsx bench/search-models/compare.ts \
//       [--reps 15] [--reps-current 5] [--walk] [--only 0,3]
//
// Needs: the current alias (INDEX_PREFIX, `npm run reindex`) and build.ts's indices and
// /tmp/scale/nested.ndjson.
import { createReadStream, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { loadEnv } from '../../src/config/env.js';
import { createEsClient } from '../../src/es/client.js';
import { indexNames } from '../../src/es/index-names.js';
import { searchQuerySchema, type SearchQuery } from '../../src/contract/buyer.js';
import { searchBody, searchPage } from './offer-path.js';
import type { SearchPage } from '../../src/search/queries/search-result.js';
import { cardSearchBody, cardSearchPage, usesCards } from '../../src/search/queries/card-search.js';
import { load, pct } from '../world.js';
import { COMBO3_INDEX, COMBO3_MAX, COMBO_INDEX, NESTED_INDEX, SKUS_INDEX } from './model.js';
import {
  comboSearchBody,
  comboSearchPage,
  setComboMax,
  nestedSearchBody,
  nestedSearchPage,
  reference,
  skusSearchBody,
  skusSearchPage,
  type RefProduct,
} from './queries.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    reps: { type: 'string', default: '15' },
    'reps-current': { type: 'string', default: '5' },
    walk: { type: 'boolean', default: false },
    only: { type: 'string' },
    paths: { type: 'string', default: 'current,nested,skus,combo' },
    out: { type: 'string', default: '/tmp/scale/compare.json' },
  },
});
const env = loadEnv();
const es = createEsClient(env.ELASTICSEARCH_URL, 120_000);
const alias = indexNames(env.INDEX_PREFIX).alias;
const log = (m: string) => console.error(`[compare ${new Date().toISOString().slice(11, 19)}] ${m}`);

const products: RefProduct[] = [];
for await (const line of createInterface({ input: createReadStream('/tmp/scale/nested.ndjson') })) {
  if (line) products.push(JSON.parse(line) as RefProduct);
}
log(`reference: ${products.length} products`);

// The largest stores by shown groups (sellerCode), from the reference.
const perStore = new Map<string, number>();
for (const p of products) for (const g of p.groups) if (g.sellerCode) perStore.set(g.sellerCode, (perStore.get(g.sellerCode) ?? 0) + 1);
const largest = [...perStore].sort((a, b) => b[1] - a[1]).map(([k]) => k);

export const CASES: Record<string, string | string[]>[] = [
  { condition: 'Near Mint' },
  { checkoutMode: 'express' },
  { condition: 'Near Mint', language: 'English' },
  { language: 'Japanese' },
  { sellerCode: largest[0]! },
  { category: 'Pokémon', finish: 'Holofoil' },
  { checkoutMode: 'manual' },
  { condition: 'Near Mint', language: 'English', finish: 'Non-Foil', sort: 'name_desc' },
  { sellerCode: largest[1]!, condition: 'Lightly Played' },
  { keyword: 'dragon', condition: 'Near Mint' },
  { keyword: 'dragon' },
  {},
  { condition: ['Near Mint', 'Lightly Played'], language: 'Japanese' },
  { checkoutMode: 'manual', language: 'English', finish: 'Foil' },
];

type Path = 'current' | 'nested' | 'skus' | 'combo' | 'combo3';
const PATHS = values.paths.split(',') as Path[];

function bodyOf(path: Path, q: SearchQuery, after: string | null): { index: string; body: Record<string, unknown> } {
  if (path === 'current') return { index: alias, body: usesCards(q) ? cardSearchBody(q, after) : searchBody(q, after) };
  if (path === 'nested') return { index: NESTED_INDEX, body: nestedSearchBody(q, after) };
  if (path === 'combo' || path === 'combo3') {
    setComboMax(path === 'combo' ? 5 : COMBO3_MAX);
    return { index: path === 'combo' ? COMBO_INDEX : COMBO3_INDEX, body: comboSearchBody(q, after) };
  }
  return { index: SKUS_INDEX, body: skusSearchBody(q, after) };
}

async function run(path: Path, q: SearchQuery, after: string | null): Promise<{ took: number; page: SearchPage }> {
  const { index, body } = bodyOf(path, q, after);
  const res = (await es.search({ index, request_cache: false, ...body } as never)) as unknown as {
    took: number;
    hits: { hits: unknown[] };
    aggregations?: Record<string, unknown>;
  };
  const page =
    path === 'current'
      ? usesCards(q)
        ? cardSearchPage(res, q.limit)
        : searchPage(res.aggregations!, q.limit)
      : path === 'nested'
        ? nestedSearchPage(res, q)
        : path === 'combo' || path === 'combo3'
          ? comboSearchPage(res, q)
          : skusSearchPage(res, q);
  return { took: res.took, page };
}

interface Diff {
  items: number;
  facetValues: number;
  maxFacetError: number;
}
/** How many items and facet values differ from the reference's (0/0 = equal). */
function diff(got: SearchPage, items: SearchPage['items'], facets: SearchPage['facets']): Diff {
  let it = 0;
  for (let i = 0; i < Math.max(got.items.length, items.length); i++) if (!isDeepStrictEqual(got.items[i], items[i])) it++;
  let fv = 0;
  let maxErr = 0;
  for (const f of Object.keys(facets) as (keyof typeof facets)[]) {
    const a = got.facets[f] as { count: number }[];
    const b = facets[f] as { count: number }[];
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (!isDeepStrictEqual(a[i], b[i])) {
        fv++;
        if (a[i] && b[i]) maxErr = Math.max(maxErr, Math.abs(a[i]!.count - b[i]!.count) / b[i]!.count);
      }
    }
  }
  return { items: it, facetValues: fv, maxFacetError: maxErr };
}

const results: unknown[] = [];
const only = values.only ? new Set(values.only.split(',').map(Number)) : null;
console.log(
  `| search | matching products | page | ${PATHS.map((p) => `${p} took p50 / p99 (n)`).join(' | ')} | ${PATHS.map((p) => `${p} vs exact: items / facet values differing (max error)`).join(' | ')} |`,
);
console.log(`|---|---|---|${PATHS.map(() => '---|').join('')}${PATHS.map(() => '---|').join('')}`);
for (const [ci, raw] of CASES.entries()) {
  if (only && !only.has(ci)) continue;
  const q = searchQuerySchema.parse(raw);
  const ref = reference(products, q);
  for (const depth of [0, 20]) {
    if (depth * q.limit >= ref.items.length) continue;
    const after = depth === 0 ? null : ref.sortKeys[depth * q.limit - 1]!;
    const refItems = ref.items.slice(depth * q.limit, (depth + 1) * q.limit);
    const tooks: Record<string, number[]> = {};
    const diffs: Record<string, Diff> = {};
    // Interleaved (one run of each path per round), so load changes of the shared machine fall on
    // every path alike.
    for (const path of PATHS) tooks[path] = [];
    for (let i = 0; i < Number(values.reps); i++) {
      for (const path of PATHS) {
        if (path === 'current' && i >= Number(values['reps-current'])) continue;
        const r = await run(path, q, after);
        tooks[path]!.push(r.took);
        if (i === 0) diffs[path] = diff(r.page, refItems, ref.facets);
      }
    }
    const row = { search: raw, products: ref.items.length, depth, tooks, diffs, load: load() };
    results.push(row);
    const fmt = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return `${pct(s, 0.5)} / ${pct(s, 0.99)} (${s.length})`;
    };
    console.log(
      `| \`${JSON.stringify(raw)}\` | ${ref.items.length} | ${depth === 0 ? 'first' : '21st'} | ${PATHS.map((p) => fmt(tooks[p]!)).join(' | ')} | ${PATHS.map((p) => `${diffs[p]!.items} / ${diffs[p]!.facetValues}${diffs[p]!.maxFacetError > 0 ? ` (${(diffs[p]!.maxFacetError * 100).toFixed(2)}%)` : ''}`).join(' | ')} |`,
    );
  }
}
log(load());

// Cursor walks: every page of the nested model, checked against the reference's full order.
// The first candidate path named (--paths), else nested.
const walkPath: Path = PATHS.find((p) => p !== 'current') ?? 'nested';
if (values.walk) {
  for (const raw of [
    { language: 'Korean', limit: '100' },
    { sellerCode: largest[4]!, condition: 'Near Mint', limit: '100', sort: 'name_desc' },
  ]) {
    const q = searchQuerySchema.parse(raw);
    const ref = reference(products, q);
    const seen: number[] = [];
    const tooks: number[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const r = await run(walkPath, q, after);
      tooks.push(r.took);
      pages++;
      seen.push(...r.page.items.map((i) => i.productId));
      if (r.page.nextAfter === null) break;
      after = r.page.nextAfter;
    }
    const same = isDeepStrictEqual(
      seen,
      ref.items.map((i) => i.productId),
    );
    const firstTen = tooks.slice(0, 10);
    const lastTen = tooks.slice(-10);
    const mean = (xs: number[]) => (xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(1);
    const line = `walk (${walkPath}) ${JSON.stringify(raw)}: ${pages} pages, ${seen.length} items, exactly the reference order: ${same}; took mean first 10 pages ${mean(firstTen)} ms, last 10 ${mean(lastTen)} ms; ${load()}`;
    console.log(line);
    results.push({ walk: raw, pages, items: seen.length, same, tooks });
  }
}
writeFileSync(values.out, JSON.stringify(results, null, 1));
await es.close();
