// The quality of GET /search/suggest on a loaded, indexed sample (names taken from its cards):
//   - typos: a single edit (insert, delete, replace, swap of neighbours; never the first letter)
//     of a word of 5+ characters of a name: the name among the first 3 completions, and the
//     correction equal to the name's keyword (its terms as written, joined by spaces);
//   - prefixes: the name with its last word cut to its first 3+ characters: the name among the
//     first 8 completions; the names drawn once uniformly (every distinct name alike, the rarest
//     included), once by their products (a name on 40 products is drawn 40 times as often as a
//     name on one: the names buyers meet and look for);
//   - counts: every completion's productCount against what GET /search?keyword=<text> lists
//     (every page).
// Fixed seed: the same sample gives the same cases. The reads are the API's own: the index path
// (indexReads), or with --from memory the in-memory catalog of the cards (suggest/live-catalog.ts
// readCatalog, read once at the start: the sample is not written meanwhile).
//
//   . .stack/env && npm run bench:suggest-quality -- [--prefix mp] [--seed 29] [--names 300] [--from index|memory]
import { parseArgs } from 'node:util';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { loadEnv } from '../src/config/env.js';
import { indexReads } from '../src/search/index-reads.js';
import { readCatalog } from '../src/search/suggest/live-catalog.js';
import { searchQuerySchema, suggestQuerySchema, type Suggestions } from '../src/contract/buyer.js';
import { displayTerms } from '../src/search/suggest/match.js';
import { terms } from '../src/search/text.js';
import { load, pct } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    prefix: { type: 'string' },
    seed: { type: 'string', default: '29' },
    names: { type: 'string', default: '300' },
    from: { type: 'string', default: 'index' },
  },
});
const env = loadEnv();
const alias = indexNames(values.prefix ?? env.INDEX_PREFIX).alias;
const es = createEsClient(env.ELASTICSEARCH_URL, 120_000);
const reads = indexReads(es, alias);
const memory = values.from === 'memory' ? await readCatalog(es, Object.keys(await es.indices.getAlias({ name: alias }))[0]!) : null;
const log = (m: string) => console.error(`[bench:suggest-quality ${new Date().toISOString().slice(11, 19)}] ${m}`);

let seed = Number(values.seed) >>> 0 || 1;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Every distinct name the cards carry (the names suggestions can offer), in key order, with its cards (products). */
async function allNames(): Promise<{ name: string; products: number }[]> {
  const out: { name: string; products: number }[] = [];
  let after: Record<string, string> | undefined;
  for (;;) {
    const res = await es.search({
      index: alias,
      size: 0,
      query: { term: { docType: 'card' } },
      aggs: { names: { composite: { size: 5000, sources: [{ name: { terms: { field: 'nameKey' } } }], ...(after ? { after } : {}) } } },
    });
    const agg = res.aggregations!.names as { buckets: { key: { name: string }; doc_count: number }[]; after_key?: Record<string, string> };
    out.push(...agg.buckets.map((b) => ({ name: b.key.name, products: b.doc_count })));
    if (!agg.after_key || agg.buckets.length === 0) return out;
    after = agg.after_key;
  }
}

type Edit = 'insert' | 'delete' | 'replace' | 'swap';
const EDITS: Edit[] = ['insert', 'delete', 'replace', 'swap'];

/** One edit of `word` (folded, at least 5 code points) never touching its first letter. */
function typo(word: string, edit: Edit): string {
  const cs = Array.from(word);
  const other = (c: string) => {
    for (;;) {
      const l = pick([...LETTERS]);
      if (l !== c) return l;
    }
  };
  switch (edit) {
    case 'insert': {
      const at = 1 + Math.floor(rnd() * cs.length);
      cs.splice(at, 0, pick([...LETTERS]));
      break;
    }
    case 'delete':
      cs.splice(1 + Math.floor(rnd() * (cs.length - 1)), 1);
      break;
    case 'replace': {
      const at = 1 + Math.floor(rnd() * (cs.length - 1));
      cs[at] = other(cs[at]!);
      break;
    }
    case 'swap': {
      // Neighbours that differ (swapping "ll" changes nothing).
      const spots = cs.flatMap((c, i) => (i >= 1 && i + 1 < cs.length && cs[i + 1] !== c ? [i] : []));
      if (spots.length === 0) return word;
      const at = pick(spots);
      [cs[at], cs[at + 1]] = [cs[at + 1]!, cs[at]!];
      break;
    }
  }
  return cs.join('');
}

const latencies: number[] = [];
async function suggest(q: string, limit = 8): Promise<Suggestions> {
  const started = performance.now();
  const query = suggestQuerySchema.parse({ q, limit: String(limit) });
  const got = memory === null ? await reads.suggest(query) : memory.suggest(query);
  latencies.push(performance.now() - started);
  return got;
}

const totals = new Map<string, number>();
/** Products GET /search?keyword=<keyword> lists, every page. */
async function listed(keyword: string): Promise<number> {
  const known = totals.get(keyword);
  if (known !== undefined) return known;
  let n = 0;
  let after: string | null = null;
  do {
    const page = await reads.search(searchQuerySchema.parse({ keyword, limit: '100' }), after);
    n += page.items.length;
    after = page.nextAfter;
  } while (after !== null);
  totals.set(keyword, n);
  return n;
}

const countErrors: string[] = [];
let countsChecked = 0;
async function checkCounts(s: Suggestions): Promise<void> {
  for (const c of s.completions) {
    countsChecked++;
    const n = await listed(c.text);
    if (n !== c.productCount) countErrors.push(`${c.text}: ${c.productCount} suggested, ${n} listed`);
  }
}

const loadStart = load();
const named = await allNames();
const names = named.map((n) => n.name);
log(`${names.length} distinct names on the cards of ${alias}; ${loadStart}`);
const wanted = Number(values.names);

// Typos: names with a word of 5+ characters.
const typoCases: { name: string; q: string; keyword: string; edit: Edit }[] = [];
const typoable = names.filter((n) => terms(n).some((t) => Array.from(t).length >= 5));
for (let i = 0; i < wanted && typoable.length > 0; i++) {
  const name = pick(typoable);
  const ts = terms(name);
  const long = ts.flatMap((t, j) => (Array.from(t).length >= 5 ? [j] : []));
  const j = pick(long);
  const edit = EDITS[i % EDITS.length]!;
  const changed = typo(ts[j]!, edit);
  if (changed === ts[j]) continue;
  typoCases.push({ name, q: ts.map((t, k) => (k === j ? changed : t)).join(' '), keyword: displayTerms(name).join(' '), edit });
}

// Prefixes: the last word cut to its first 3+ characters.
const prefixCases: { name: string; q: string }[] = [];
const cuttable = names.filter((n) => Array.from(terms(n).at(-1) ?? '').length >= 4);
for (let i = 0; i < wanted && cuttable.length > 0; i++) {
  const name = pick(cuttable);
  const ts = terms(name);
  const last = Array.from(ts.at(-1)!);
  const keep = 3 + Math.floor(rnd() * (last.length - 3));
  prefixCases.push({ name, q: [...ts.slice(0, -1), last.slice(0, keep).join('')].join(' ') });
}

// The same, the names drawn by their products.
const byProducts = named.filter((n) => Array.from(terms(n.name).at(-1) ?? '').length >= 4);
const cumulative: number[] = [];
byProducts.reduce((sum, n) => (cumulative.push(sum + n.products), sum + n.products), 0);
const pickByProducts = (): string => {
  const x = rnd() * cumulative.at(-1)!;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! > x) hi = mid;
    else lo = mid + 1;
  }
  return byProducts[lo]!.name;
};
const weightedCases: { name: string; q: string }[] = [];
for (let i = 0; i < wanted && byProducts.length > 0; i++) {
  const name = pickByProducts();
  const ts = terms(name);
  const last = Array.from(ts.at(-1)!);
  const keep = 3 + Math.floor(rnd() * (last.length - 3));
  weightedCases.push({ name, q: [...ts.slice(0, -1), last.slice(0, keep).join('')].join(' ') });
}

let inTop3 = 0;
let corrected = 0;
let listsAnyway = 0;
const typoMisses: string[] = [];
const byEdit = new Map<Edit, { n: number; top3: number; corrected: number }>();
for (const c of typoCases) {
  const s = await suggest(c.q);
  await checkCounts(s);
  const e = byEdit.get(c.edit) ?? { n: 0, top3: 0, corrected: 0 };
  byEdit.set(c.edit, e);
  e.n++;
  const top = s.completions.slice(0, 3).some((x) => x.text === c.name);
  if (top) {
    inTop3++;
    e.top3++;
  }
  // A typo that happens to spell another listed keyword has nothing to correct.
  const already = (await listed(c.q)) > 0;
  if (already) listsAnyway++;
  const ok = already ? s.correction === null : s.correction === c.keyword;
  if (ok) {
    corrected++;
    e.corrected++;
  }
  if ((!top || !ok) && typoMisses.length < 15) {
    typoMisses.push(
      `| \`${c.q}\` | ${c.name} | ${c.edit} | ${s.completions
        .slice(0, 3)
        .map((x) => x.text)
        .join('; ')} | ${s.correction ?? 'null'} |`,
    );
  }
}
let inTop8 = 0;
const prefixMisses: string[] = [];
for (const c of prefixCases) {
  const s = await suggest(c.q);
  await checkCounts(s);
  if (s.completions.slice(0, 8).some((x) => x.text === c.name)) inTop8++;
  else if (prefixMisses.length < 10) prefixMisses.push(`| \`${c.q}\` | ${c.name} | ${s.completions.map((x) => x.text).join('; ')} |`);
}

let weightedTop8 = 0;
for (const c of weightedCases) {
  const s = await suggest(c.q);
  await checkCounts(s);
  if (s.completions.slice(0, 8).some((x) => x.text === c.name)) weightedTop8++;
}

const pc = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);
const sorted = [...latencies].sort((a, b) => a - b);
console.log(
  `## bench:suggest-quality ${new Date().toISOString()} (alias ${alias}, from ${values.from}, seed ${values.seed}; ${names.length} distinct names; ${loadStart} -> ${load()})`,
);
console.log('\n| check | cases | passed | rate |\n|---|---|---|---|');
console.log(`| typo: the name among the first 3 completions | ${typoCases.length} | ${inTop3} | ${pc(inTop3, typoCases.length)} |`);
console.log(
  `| typo: correction = the name's keyword (null when the typo itself lists products: ${listsAnyway}) | ${typoCases.length} | ${corrected} | ${pc(corrected, typoCases.length)} |`,
);
for (const [edit, e] of byEdit)
  console.log(`| typo by ${edit}: top 3 / correction | ${e.n} | ${e.top3} / ${e.corrected} | ${pc(e.top3, e.n)} / ${pc(e.corrected, e.n)} |`);
console.log(`| prefix: the name among the first 8 completions | ${prefixCases.length} | ${inTop8} | ${pc(inTop8, prefixCases.length)} |`);
console.log(
  `| prefix, names drawn by their products: among the first 8 | ${weightedCases.length} | ${weightedTop8} | ${pc(weightedTop8, weightedCases.length)} |`,
);
console.log(
  `| productCount equal to what /search lists | ${countsChecked} completions | ${countsChecked - countErrors.length} | ${countErrors.length} differ |`,
);
console.log(
  `\nSuggest reads (in process, one at a time, ${sorted.length}): p50 ${pct(sorted, 0.5).toFixed(1)} ms, p99 ${pct(sorted, 0.99).toFixed(1)} ms.`,
);
if (typoMisses.length)
  console.log(
    `\nTypo cases missed (first ${typoMisses.length}):\n| q | name | edit | first 3 | correction |\n|---|---|---|---|---|\n${typoMisses.join('\n')}`,
  );
if (prefixMisses.length)
  console.log(`\nPrefix cases missed (first ${prefixMisses.length}):\n| q | name | completions |\n|---|---|---|\n${prefixMisses.join('\n')}`);
if (countErrors.length) console.log(`\nCounts that differ:\n${countErrors.slice(0, 20).join('\n')}`);
await es.close();
