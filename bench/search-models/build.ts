// Builds the experimental indices of docs/search-scale.md from PostgreSQL (the same snapshot
// stream and document builders as `npm run reindex`, read-only), and times each model's _bulk
// against a raw _bulk of the same bytes and against the current cards.
//
//   . .stack/env && nice -n 19 npx tsx bench/search-models/build.ts [--models nested,skus,cards]
//
// Writes /tmp/scale/nested.ndjson (the nested documents, one a line): the exact reference of
// compare.ts is computed from it in memory, independently of Elasticsearch.
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import type { Client } from '@elastic/elasticsearch';
import { loadEnv } from '../../src/config/env.js';
import { createPool } from '../../src/db/pool.js';
import { createEsClient } from '../../src/es/client.js';
import { poBoxSuspended } from '../../src/db/offer-source.js';
import { searchItem } from '../../src/search/documents/builders.js';
import { cardDoc as productCard, cardFolds, foldOffer, type CardFold } from '../../src/search/documents/card-fold.js';
import { snapshotChunks } from '../../indexer/rebuild.js';
import { writeSerialized, type BulkBody } from '../../indexer/bulk.js';
import { load } from '../world.js';
import {
  addOffer,
  combo3Mapping,
  COMBO3_INDEX,
  COMBO3_MAX,
  comboFields,
  comboMapping,
  COMBO_INDEX,
  nestedMapping,
  NESTED_INDEX,
  settings,
  skusMapping,
  SKUS_INDEX,
  type Group,
  type ProductGroups,
} from './model.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    models: { type: 'string', default: 'nested,skus,combo,cards' },
    out: { type: 'string', default: '/tmp/scale' },
    /** Read the nested documents of an earlier run (its nested.ndjson) instead of PostgreSQL: combo only. */
    from: { type: 'string' },
  },
});
const models = new Set(values.models.split(','));
const env = loadEnv();
const es = createEsClient(env.ELASTICSEARCH_URL, 300_000);
const pool = createPool(env.DATABASE_URL, 2);
const log = (m: string) => console.error(`[build ${new Date().toISOString().slice(11, 19)}] ${m}`);

// ---- 1. one snapshot pass: offer documents -> groups per product and the current card folds
const products = new Map<number, ProductGroups>();
const folds = cardFolds();
// The card as it was before the model was adopted (src/ now writes groups and combination keys):
// the prototypes below add their own.
function cardDoc(f: CardFold): Record<string, unknown> {
  const { docType, productId, sortKey, nameTerms, category, set, rarity, collectorNumber, condition, language, finish, sellerFacet, card } =
    productCard(f);
  return { docType, productId, sortKey, nameTerms, category, set, rarity, collectorNumber, condition, language, finish, sellerFacet, card };
}
let offers = 0;
const t0 = performance.now();
if (values.from) {
  for await (const line of createInterface({ input: createReadStream(values.from) })) {
    if (!line) continue;
    const d = JSON.parse(line) as { productId: number; groups: Group[] };
    products.set(d.productId, { fields: null as never, groups: new Map(d.groups.map((g, i) => [String(i), g])), doc: d } as ProductGroups);
  }
} else {
  const db = await pool.connect();
  try {
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const poBox = await poBoxSuspended(db);
    outer: for await (const { ops } of snapshotChunks(db, poBox)) {
      for (const op of ops) {
        if (op.doc?.docType !== 'offer') break outer; // cards, products, skus, sellers follow the offers
        offers++;
        addOffer(products, op.doc);
        foldOffer(folds, op.doc);
      }
    }
    await db.query('COMMIT');
  } finally {
    db.release();
  }
}
const readMs = performance.now() - t0;
let maxGroups = 0;
let groups = 0;
for (const p of products.values()) {
  maxGroups = Math.max(maxGroups, p.groups.size);
  groups += p.groups.size;
}
log(
  `snapshot: ${offers} offer docs -> ${products.size} products, ${groups} shown (sku, store) groups (max ${maxGroups} a product) in ${Math.round(readMs)} ms; ${load()}`,
);
if (maxGroups > 100) throw new Error('more groups than index.max_inner_result_window (100): raise it');

// ---- 2. documents per model
type Doc = { id: string; doc: Record<string, unknown> };

function* nestedDocs(): Generator<Doc> {
  for (const [productId, p] of products) {
    const read = (p as ProductGroups & { doc?: Record<string, unknown> }).doc;
    if (read) {
      yield { id: `c:${productId}`, doc: read };
      continue;
    }
    const card = cardDoc(folds.products.get(productId)!);
    yield { id: `c:${productId}`, doc: { ...card, groups: [...p.groups.values()].map(groupSource) } };
  }
}
const groupSource = (g: Group) => ({
  skuId: g.skuId,
  storeKey: g.storeKey,
  lane: g.lane,
  checkoutMode: g.checkoutMode,
  sellerCode: g.sellerCode,
  sellerFacet: g.sellerFacet,
  condition: g.condition,
  language: g.language,
  finish: g.finish,
  isSealed: g.isSealed,
  price: g.price,
});

function* comboDocs(max: number = 5): Generator<Doc> {
  for (const d of nestedDocs()) {
    const gs = products.get(d.doc.productId as number)!.groups.values();
    const groups = d.doc.groups as ReturnType<typeof groupSource>[];
    const uniq = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => x !== null))].sort();
    yield {
      id: d.id,
      doc: { ...d.doc, sellerCode: uniq(groups.map((g) => g.sellerCode)), checkoutMode: uniq(groups.map((g) => g.checkoutMode)), ...comboFields(gs, max) },
    };
  }
}

function* cardDocs(): Generator<Doc> {
  for (const [productId, f] of folds.products) yield { id: `c:${productId}`, doc: cardDoc(f) };
}

function* skuDocs(): Generator<Doc> {
  for (const [productId, p] of products) {
    const bySku = new Map<number, Group[]>();
    for (const g of p.groups.values()) {
      const list = bySku.get(g.skuId);
      if (list) list.push(g);
      else bySku.set(g.skuId, [g]);
    }
    const { item, ...fields } = p.fields;
    for (const [skuId, gs] of bySku) {
      const uniq = <T>(xs: (T | null)[]) => [...new Set(xs.filter((x): x is T => x !== null))].sort();
      const price = Math.min(...gs.map((g) => g.price));
      yield {
        id: `u:${productId}:${skuId}`,
        doc: {
          docType: 'skusum',
          productId,
          skuId,
          ...fields,
          condition: gs[0]!.condition,
          language: gs[0]!.language,
          finish: gs[0]!.finish,
          sellerCode: uniq(gs.map((g) => g.sellerCode)),
          sellerFacet: uniq(gs.map((g) => g.sellerFacet)),
          checkoutMode: uniq(gs.map((g) => g.checkoutMode)),
          storeKey: uniq(gs.map((g) => g.storeKey)),
          lane: uniq(gs.map((g) => g.lane)),
          isSealed: gs.some((g) => g.isSealed),
          price,
          item: searchItem(item, {
            fromPrice: price,
            sellerCount: new Set(gs.map((g) => g.storeKey)).size,
            isSealed: gs.some((g) => g.isSealed),
            hasNative: gs.some((g) => g.lane === 'native'),
          }),
        },
      };
    }
  }
}

function serialize(index: string, docs: Iterable<Doc>, chunk = 2000): { bodies: BulkBody[]; bytes: number; count: number; ms: number } {
  const started = performance.now();
  const action = `{"index":{"_index":${JSON.stringify(index)},"_id":`;
  const bodies: BulkBody[] = [];
  let lines: string[] = [];
  let items = 0;
  let bytes = 0;
  let count = 0;
  const flush = () => {
    lines.push('');
    const body = Buffer.from(lines.join('\n'));
    bytes += body.length;
    bodies.push({ body, items });
    lines = [];
    items = 0;
  };
  for (const d of docs) {
    lines.push(`${action}${JSON.stringify(d.id)}}}`, JSON.stringify(d.doc));
    items++;
    count++;
    if (items === chunk) flush();
  }
  if (items > 0) flush();
  return { bodies, bytes, count, ms: performance.now() - started };
}

/** The bodies rewritten for another index name (raw _bulk of the same documents). */
function retarget(bodies: BulkBody[], from: string, to: string): BulkBody[] {
  const a = Buffer.from(`{"index":{"_index":${JSON.stringify(from)},`);
  const b = `{"index":{"_index":${JSON.stringify(to)},`;
  return bodies.map((x) => ({ body: Buffer.from(x.body.toString().split(a.toString()).join(b)), items: x.items }));
}

/** Two bulk requests in flight, as the rebuild does. */
async function bulkAll(es: Client, bodies: BulkBody[]): Promise<number> {
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) await writeSerialized(es, bodies[next++]!);
  };
  await Promise.all([worker(), worker()]);
  return performance.now() - started;
}

async function freshIndex(name: string, mappings: Record<string, unknown>): Promise<void> {
  await es.indices.delete({ index: name, ignore_unavailable: true });
  await es.indices.create({ index: name, settings: { ...settings, refresh_interval: '-1' }, mappings });
  await es.cluster.health({ index: name, wait_for_status: 'green', timeout: '30s' });
}

async function finish(name: string): Promise<{ docs: number; bytes: number; refreshMs: number }> {
  const started = performance.now();
  await es.indices.putSettings({ index: name, settings: { refresh_interval: '1s' } });
  await es.indices.refresh({ index: name });
  const refreshMs = performance.now() - started;
  const st = await es.indices.stats({ index: name, metric: ['docs', 'store'] });
  const p = st.indices![name]!.primaries!;
  return { docs: p.docs!.count!, bytes: p.store!.size_in_bytes!, refreshMs };
}

const cardMappings = {
  dynamic: 'strict',
  properties: { ...nestedMapping.properties, groups: undefined },
};
delete (cardMappings.properties as Record<string, unknown>).groups;

const plan: [string, string, Record<string, unknown>, () => Iterable<Doc>][] = [
  ['nested', NESTED_INDEX, nestedMapping, nestedDocs],
  ['skus', SKUS_INDEX, skusMapping, skuDocs],
  ['combo', COMBO_INDEX, comboMapping, comboDocs],
  ['combo3', COMBO3_INDEX, combo3Mapping, () => comboDocs(COMBO3_MAX)],
  ['cards', 'scale-cards', cardMappings, cardDocs],
];
mkdirSync(values.out, { recursive: true });
for (const [model, index, mappings, docs] of plan) {
  if (!models.has(model)) continue;
  const s = serialize(index, docs());
  await freshIndex(index, mappings);
  const bulkMs = await bulkAll(es, s.bodies);
  const f = await finish(index);
  log(
    `${model}: ${s.count} docs (${f.docs} Lucene docs incl. nested), ${(s.bytes / 1e6).toFixed(0)} MB NDJSON, build+serialize ${Math.round(s.ms)} ms, _bulk ${Math.round(bulkMs)} ms, refresh ${Math.round(f.refreshMs)} ms, store ${(f.bytes / 1e6).toFixed(0)} MB; ${load()}`,
  );
  // The same bytes once more into a scratch index: the raw _bulk this model's write is compared with.
  const raw = `${index}-raw`;
  const rawBodies = retarget(s.bodies, index, raw);
  await freshIndex(raw, mappings);
  const rawMs = await bulkAll(es, rawBodies);
  await es.indices.delete({ index: raw });
  log(`${model}: raw _bulk of the same documents ${Math.round(rawMs)} ms (again, into ${raw}); ${load()}`);
  if (model === 'nested' && !values.from) {
    const out = createWriteStream(`${values.out}/nested.ndjson`);
    for (const d of nestedDocs()) if (!out.write(`${JSON.stringify(d.doc)}\n`)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
  }
}
await pool.end();
await es.close();
