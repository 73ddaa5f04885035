import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import { parse } from 'yaml';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../support/context.js';
import { eventually } from '../../support/eventually.js';
import { exited } from '../../support/dispatcher-process.js';
import { spawnReindex } from '../../support/indexer-process.js';
import { testApp } from '../../support/app.js';
import { seedSellerApi } from '../../support/seller-seed.js';
import { startLiveIndexer, type LiveIndexer } from '../../../indexer/live.js';
import { indexerMetrics, rebuildMetrics } from '../../../indexer/metrics.js';
import { rebuild } from '../../../indexer/rebuild.js';
import { indicesBehind } from '../../../indexer/index-admin.js';
import { quarantinedDocuments } from '../../../src/db/index-quarantine.js';
import { createLogger } from '../../../src/lib/logger.js';
import { createRegistry } from '../../../src/lib/metrics.js';

// One document Elasticsearch refuses must not stop indexing: it is quarantined (recorded with its
// reason, counted, hidden from buyers) while every other write reaches buyers and the checkpoint
// moves on; a rebuild finishes and reports it; the row's next accepted change takes it out of
// quarantine. A cluster that cannot take writes for a while (a write block) quarantines nothing.
//
// The refused document: the card of a product with more (sku, store) offer groups than the index
// allows nested objects (index.mapping.nested_objects.limit, 10,000). Long strings no longer break
// a document (ignore_above, the bounded sort key): a 40,000-character name is indexed.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'indexer');
const HYDRA = 300;
const GROUPS = 10_001;

let ctx: TestContext;
let indexer: LiveIndexer;
let app: Express;
const registry = createRegistry({ processMetrics: false });
let refusals = 0;

const offersOf = async (productId: number) =>
  (await request(app).get(`/products/${productId}`)).body.data.offers as { sellerId: number; skuId: number; price: number }[];
const searchIds = async (keyword: string) =>
  ((await request(app).get(`/search?keyword=${encodeURIComponent(keyword)}`)).body.data.items as { productId: number }[]).map((i) => i.productId);
const reaches = async (check: () => Promise<void>) => void (await eventually(check, 240_000, 100));
/** The threshold of an alert rule of the form `<selector expression> > N` (ops/alerts.yml). */
const alertThreshold = (alert: string, expr: RegExp) => {
  const rules = (
    parse(readFileSync(path.join(root, 'ops/alerts.yml'), 'utf8')) as { groups: { rules: { alert?: string; expr: string }[] }[] }
  ).groups.flatMap((g) => g.rules);
  const rule = rules.find((r) => r.alert === alert);
  expect(rule?.expr.trim()).toMatch(expr);
  return Number(/> (\d+)$/.exec(rule!.expr.trim())![1]);
};
const exposed = async (name: string) => {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
};

beforeAll(async () => {
  ctx = await createTestContext();
  await seedSellerApi(ctx);
  await ctx.pool.query(`INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES (7, 1001, 101, 250, 3, 'matched')`);
  indexer = await startLiveIndexer({
    pool: ctx.pool,
    es: ctx.es,
    index: ctx.index,
    logger,
    databaseUrl: ctx.databaseUrl,
    pollMs: 200,
    metrics: indexerMetrics(registry),
  });
  await indexer.idle();
  app = testApp(ctx);
}, 120_000);

afterAll(async () => {
  await indexer?.stop();
  await ctx?.es.indices.delete({ index: `${ctx.env.INDEX_PREFIX}*` }, { ignore: [404] });
  await ctx?.close();
});

describe('a document Elasticsearch refuses is quarantined, not retried forever', () => {
  it('beside unrelated writes: the writes reach buyers, the document is quarantined, counted and hidden', async () => {
    // Committed first, so the refused card and the unrelated writes share batches.
    await ctx.pool.query(`
      INSERT INTO products (product_id, name, set_name, category) VALUES (${HYDRA}, 'Hydra Broodmaster', 'Theros', 'Magic: The Gathering');
      INSERT INTO skus (sku_id, product_id, condition, language, finish)
        SELECT 300000 + i, ${HYDRA}, 'Grade ' || i, 'English', 'Foil' FROM generate_series(1, ${GROUPS}) i;
      INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status)
        SELECT 7, 300000 + i, ${HYDRA}, 100 + i, 1, 'matched' FROM generate_series(1, ${GROUPS}) i;
    `);
    await ctx.pool.query(`UPDATE listings SET price = 260 WHERE seller_id = 7 AND sku_id = 1001`);
    await ctx.pool.query(`INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status) VALUES (7, 2001, 102, 300, 2, 'matched')`);

    await reaches(async () => expect(await offersOf(101)).toMatchObject([{ sellerId: 7, skuId: 1001, price: 260 }]));
    await reaches(async () => expect(await offersOf(102)).toMatchObject([{ sellerId: 7, skuId: 2001, price: 300 }]));
    await indexer.idle();

    const rows = await quarantinedDocuments(ctx.pool);
    expect(rows).toEqual([
      expect.objectContaining({ id: `c:${HYDRA}`, type: 'document_parsing_exception', reason: expect.stringContaining('nested documents') }),
    ]);
    // Refused once per batch that rebuilt the card (its offers' changes span several batches).
    expect(indexer.metrics.quarantined).toBe(rows[0]!.refusals);
    expect(await exposed('indexer_quarantined_documents_total')).toBe(rows[0]!.refusals);
    refusals = rows[0]!.refusals;
    expect(await exposed('indexer_quarantined_documents')).toBe(1);
    // Its card is not in the index: the product is hidden from search; its offers (accepted) show.
    expect(await searchIds('hydra')).toEqual([]);
    expect(await searchIds('bolt')).toEqual([101]);
    expect((await offersOf(HYDRA)).length).toBeGreaterThan(0);
  }, 420_000);

  it('a rebuild finishes, and reports what it quarantined in its result and metrics', async () => {
    const rebuildRegistry = createRegistry({ processMetrics: false });
    const result = await rebuild({ pool: ctx.pool, es: ctx.es, index: ctx.index, logger, warmUp: false, onProgress: rebuildMetrics(rebuildRegistry) });
    expect(result.quarantined).toBe(1);
    expect(result.quarantinedSample).toEqual([expect.objectContaining({ id: `c:${HYDRA}`, type: 'document_parsing_exception' })]);
    expect((await rebuildRegistry.metrics()).split('\n')).toContain('indexer_rebuild_quarantined_documents 1');
    expect(await indicesBehind(ctx.es, ctx.index.alias)).toEqual([result.index]);
    // Refused again: still quarantined, once more.
    expect(await quarantinedDocuments(ctx.pool)).toEqual([expect.objectContaining({ id: `c:${HYDRA}`, refusals: refusals + 1 })]);
    expect(await searchIds('bolt')).toEqual([101]);
    expect(await searchIds('hydra')).toEqual([]);
  }, 420_000);

  it('npm run reindex exits 0 and names what it quarantined', async () => {
    const child = spawnReindex({ DATABASE_URL: ctx.databaseUrl, ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL, INDEX_PREFIX: ctx.env.INDEX_PREFIX });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.resume();
    const { code } = await exited(child);
    expect(code).toBe(0);
    expect(out).toContain('1 document(s) quarantined');
    expect(out).toMatch(new RegExp(`^  c:${HYDRA}: document_parsing_exception`, 'm'));
  }, 420_000);

  it('the row’s next change, once accepted, indexes it and takes it out of quarantine', async () => {
    await ctx.pool.query(`DELETE FROM listings WHERE seller_id = 7 AND sku_id > 305000`);
    await reaches(async () => expect(await searchIds('hydra')).toEqual([HYDRA]));
    await indexer.idle();
    expect(await quarantinedDocuments(ctx.pool)).toEqual([]);
    expect(indexer.metrics.quarantineSize).toBe(0);
    expect(await exposed('indexer_quarantined_documents')).toBe(0);
  }, 420_000);

  it('a write block fails batches and quarantines nothing, the lag and failure alerts’ expressions see it; nothing is lost once it is lifted', async () => {
    const lagAbove = alertThreshold('IndexerLagAbove5Seconds', /^max by \(lane\) \(indexer_lane_lag_seconds\{lane="small"\}\) > \d+$/);
    const failingAbove = alertThreshold('IndexerBatchesFailing', /^sum\(increase\(indexer_errors_total\[5m\]\)\) > \d+$/);
    const [concrete] = await indicesBehind(ctx.es, ctx.index.alias);
    const failuresBefore = indexer.metrics.bulkFailures;
    const errorsBefore = (await exposed('indexer_errors_total'))!;
    const quarantinedBefore = indexer.metrics.quarantined;
    await ctx.es.indices.putSettings({ index: concrete!, settings: { 'index.blocks.write': true } });
    const blockedAt = Date.now();
    try {
      await ctx.pool.query(`UPDATE listings SET price = 270 WHERE seller_id = 7 AND sku_id = 1001`);
      await ctx.pool.query(`UPDATE listings SET price = 310 WHERE seller_id = 7 AND sku_id = 2001`);
      // Retried, not quarantined: at least two failed attempts, and the table stays empty.
      await eventually(() => expect(indexer.metrics.bulkFailures).toBeGreaterThanOrEqual(failuresBefore + 2), 60_000, 50);
      // What the alert rules read, as exposed, goes past their thresholds while every batch fails.
      await eventually(
        async () => {
          expect(await exposed('indexer_lane_lag_seconds{lane="small",seller=""}')).toBeGreaterThan(lagAbove);
          expect((await exposed('indexer_errors_total'))! - errorsBefore).toBeGreaterThan(failingAbove);
        },
        120_000,
        100,
      );
      console.log(`[quarantine] write block: both alert expressions true ${Date.now() - blockedAt} ms after it began`);
      expect(await quarantinedDocuments(ctx.pool)).toEqual([]);
      expect(indexer.metrics.quarantined).toBe(quarantinedBefore);
      expect(await offersOf(101)).toMatchObject([{ price: 260 }]);
    } finally {
      await ctx.es.indices.putSettings({ index: concrete!, settings: { 'index.blocks.write': false } });
    }
    await reaches(async () => expect(await offersOf(101)).toMatchObject([{ price: 270 }]));
    await reaches(async () => expect(await offersOf(102)).toMatchObject([{ price: 310 }]));
    await indexer.idle();
    expect(await quarantinedDocuments(ctx.pool)).toEqual([]);
  }, 420_000);

  it('a 40,000-character name and set name cannot break the mapping: the product is indexed and sorts by its name', async () => {
    const name = `Counterspell ${'a'.repeat(40_000)}`;
    await ctx.pool.query(`UPDATE products SET name = $1, set_name = $2 WHERE product_id = 102`, [name, 'S'.repeat(40_000)]);
    await reaches(async () => {
      const res = await request(app).get('/search?keyword=counterspell');
      expect(res.body.data.items).toMatchObject([{ productId: 102, name, set: 'S'.repeat(40_000) }]);
    });
    await indexer.idle();
    expect(await quarantinedDocuments(ctx.pool)).toEqual([]);
    const all = ((await request(app).get('/search?sort=name')).body.data.items as { productId: number }[]).map((i) => i.productId);
    expect(all).toEqual([102, HYDRA, 101]);
  }, 420_000);
});
