import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { generateScenario } from '../../support/scenario.js';
import { caughtUp } from '../../support/write-burst.js';
import { expectIndexMatchesSource } from '../../support/index-diff.js';
import { killHard, spawnIndexer } from '../../support/indexer-process.js';
import { eventually } from '../../support/eventually.js';
import { loadFixture } from '../../../src/fixtures/load.js';
import { loadCheckpoint } from '../../../src/db/feed-guard.js';
import { startLiveIndexer, type LiveIndexer, type LiveIndexerOptions } from '../../../indexer/live.js';
import { indicesBehind } from '../../../indexer/index-admin.js';
import { createLogger } from '../../../src/lib/logger.js';
import { createRegistry } from '../../../src/lib/metrics.js';
import { indexerMetrics } from '../../../indexer/metrics.js';
import { docId } from '../../../src/search/documents/model.js';
import type { Pool } from '../../../src/db/pool.js';

// One seller's burst (a store-wide repricing) beside single changes of other sellers: the single
// changes reach the index before the burst has drained, every listing ends at its last state
// (also through SIGKILLs), and the backlog and lag are read from the feed, so a stall shows while
// batches fail.

const BURST_SELLER = 1;
/** Sellers of the scenario whose offers are shown (live, ready, current terms). */
const OTHERS = [6, 7, 8];

let ctx: TestContext;
let indexer: LiveIndexer | undefined;
let child: ChildProcess | undefined;

beforeAll(async () => {
  ctx = await createTestContext();
  await loadFixture(ctx.pool, generateScenario(9, { products: 1500, listings: 600 }).fixture);
  // The burst seller lists every sku.
  await ctx.pool.query(
    `INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status)
     SELECT $1, sku_id, product_id, 500, 3, 'matched' FROM skus ON CONFLICT (seller_id, sku_id) DO NOTHING`,
    [BURST_SELLER],
  );
  // Single changes need listings of the other sellers to change.
  for (const s of OTHERS) {
    await ctx.pool.query(
      `INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, match_status)
       SELECT $1, sku_id, product_id, 700, 2, 'matched' FROM skus ORDER BY sku_id LIMIT 20 ON CONFLICT (seller_id, sku_id) DO NOTHING`,
      [s],
    );
  }
}, 120_000);

afterEach(async () => {
  await indexer?.stop();
  indexer = undefined;
  if (child) await killHard(child);
  child = undefined;
});

afterAll(async () => {
  await ctx.es.indices.delete({ index: `${ctx.env.INDEX_PREFIX}*` }, { ignore: [404] });
  await ctx.close();
});

function start(extra: Partial<LiveIndexerOptions> = {}): Promise<LiveIndexer> {
  return startLiveIndexer({
    pool: ctx.pool,
    es: ctx.es,
    index: ctx.index,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'indexer'),
    databaseUrl: ctx.databaseUrl,
    pollMs: 100,
    backlogPollMs: 100,
    ...extra,
  });
}

/**
 * Reprices every listing of the burst seller, `per` listings a transaction; returns the new price of
 * each sku. `restock` changes each one's stock too: a change whose cards are read and tested, not
 * an offer-only one (which drains too fast here to be overtaken).
 */
async function reprice(pool: Pool, round: number, { per = 500, restock = false } = {}): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ sku_id: number }>(
    `SELECT sku_id FROM listings WHERE seller_id = $1 AND match_status = 'matched' AND deleted_at IS NULL ORDER BY sku_id`,
    [BURST_SELLER],
  );
  const prices = new Map<number, number>();
  for (let i = 0; i < rows.length; i += per) {
    const skus = rows.slice(i, i + per).map((r) => r.sku_id);
    const stock = restock ? ', quantity = quantity + 1' : '';
    await pool.query(`UPDATE listings SET price = 1000 * $3::int + sku_id % 997${stock} WHERE seller_id = $1 AND sku_id = ANY($2::int[])`, [
      BURST_SELLER,
      skus,
      round,
    ]);
    for (const s of skus) prices.set(s, 1000 * round + (s % 997));
  }
  return prices;
}

/** The price of each offer as the index holds it now (a realtime get: written, refreshed or not); null when absent. */
async function indexedPrices(ids: string[]): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  for (let i = 0; i < ids.length; i += 2000) {
    const res = await ctx.es.mget<{ price: number }>({ index: ctx.index.alias, ids: ids.slice(i, i + 2000), _source_includes: ['price'] });
    for (const d of res.docs) {
      const doc = d as { _id: string; found?: boolean; _source?: { price: number } };
      out.set(doc._id, doc.found ? doc._source!.price : null);
    }
  }
  return out;
}

/** Other sellers' single changes, one transaction each: a price (several), a sold-out, a delete. */
async function singleChanges(pool: Pool, tag: number): Promise<Map<string, number | null>> {
  const want = new Map<string, number | null>();
  const { rows } = await pool.query<{ seller_id: number; sku_id: number }>(
    `SELECT seller_id, sku_id FROM listings WHERE seller_id = ANY($1::int[]) AND deleted_at IS NULL ORDER BY seller_id, sku_id LIMIT 6`,
    [OTHERS],
  );
  for (const [i, r] of rows.entries()) {
    const id = docId.native(r.seller_id, r.sku_id);
    if (i === rows.length - 1) {
      // Updated, then deleted: the delete is not undone by the update applied later.
      await pool.query(`UPDATE listings SET price = 77 WHERE seller_id = $1 AND sku_id = $2`, [r.seller_id, r.sku_id]);
      await pool.query(`UPDATE listings SET deleted_at = now() WHERE seller_id = $1 AND sku_id = $2`, [r.seller_id, r.sku_id]);
      want.set(id, null);
    } else {
      await pool.query(`UPDATE listings SET price = $3 WHERE seller_id = $1 AND sku_id = $2`, [r.seller_id, r.sku_id, tag + i]);
      want.set(id, tag + i);
    }
  }
  return want;
}

describe('a burst beside small changes', () => {
  it('shows other sellers’ single changes before the burst has drained, and every listing ends at its last state', async () => {
    // The index exists and is caught up; the indexer is stopped while the writes pile up.
    indexer = await start();
    await indexer.idle();
    await indexer.stop();
    indexer = undefined;

    // The burst: every listing of one seller restocked and repriced, then repriced again (a
    // listing changed twice inside it), then single changes of other sellers, each committed
    // after the whole burst.
    await reprice(ctx.pool, 1, { restock: true });
    const last = await reprice(ctx.pool, 2);
    const singles = await singleChanges(ctx.pool, 40_000);
    const burstIds = [...last.keys()].map((sku) => docId.native(BURST_SELLER, sku));
    expect(burstIds.length).toBeGreaterThan(3000);

    // Small batches, so the burst drains in many: the small lane's turns come between them.
    indexer = await start({ burstMin: 200, maxBatch: 1000 });
    let burstLeftWhenSinglesShown = -1;
    await eventually(
      async () => {
        const got = await indexedPrices([...singles.keys()]);
        for (const [id, price] of singles) expect(got.get(id), id).toBe(price);
        // Read after the singles were seen: the burst was at least this far from drained then.
        const burst = await indexedPrices(burstIds);
        burstLeftWhenSinglesShown = burstIds.filter((id) => burst.get(id) !== last.get(Number(id.split(':').pop()))).length;
      },
      120_000,
      50,
    );
    expect(burstLeftWhenSinglesShown).toBeGreaterThan(0);
    expect(indexer.metrics.smallLane?.changes).toBeGreaterThan(0);

    await indexer.idle();
    const final = await indexedPrices(burstIds);
    expect(burstIds.filter((id) => final.get(id) !== last.get(Number(id.split(':').pop())))).toEqual([]);
    const after = await indexedPrices([...singles.keys()]);
    for (const [id, price] of singles) expect(after.get(id), id).toBe(price);
    await expectIndexMatchesSource(ctx.pool, ctx.es, ctx.index.alias, 1000);
  }, 300_000);

  it('loses nothing and applies nothing out of order when SIGKILLed twice in the middle of a burst', async () => {
    // Small batches, so the burst takes many and a kill lands between two of them.
    const env = {
      DATABASE_URL: ctx.databaseUrl,
      ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL,
      INDEX_PREFIX: ctx.env.INDEX_PREFIX,
      INDEXER_MAX_BATCH: '1000',
    };
    child = spawnIndexer(env);
    await caughtUp(ctx.pool, 'live', 120_000);
    const writes = (async () => {
      for (let round = 3; round < 7; round++) {
        await reprice(ctx.pool, round, { per: 300, restock: round % 2 === 0 });
        await singleChanges(ctx.pool, 50_000 + round * 10);
      }
    })();
    for (let kill = 0; kill < 2; kill++) {
      // Killed once the checkpoint has moved (a batch of the burst written) while changes still wait, then started again.
      const at = await loadCheckpoint(ctx.pool, 'live');
      await eventually(async () => expect(await loadCheckpoint(ctx.pool, 'live')).not.toEqual(at), 120_000, 20);
      await killHard(child);
      child = spawnIndexer(env);
    }
    await writes;
    await caughtUp(ctx.pool, 'live', 240_000);
    await eventually(() => expectIndexMatchesSource(ctx.pool, ctx.es, ctx.index.alias, 1000), 60_000, 500);
  }, 400_000);
});

describe('the backlog read from the feed', () => {
  it('shows a write block in the lag within seconds while every batch fails, and loses nothing after it', async () => {
    indexer = await start();
    await indexer.idle();
    const [name] = await indicesBehind(ctx.es, ctx.index.alias);
    await ctx.es.indices.putSettings({ index: name!, settings: { 'index.blocks.read_only_allow_delete': true } });
    try {
      const singles = await singleChanges(ctx.pool, 60_000);
      await eventually(
        () => {
          expect(indexer!.metrics.errors).toBeGreaterThan(0);
          expect(indexer!.metrics.pending).toBeGreaterThanOrEqual(singles.size);
          expect(indexer!.metrics.lagSeconds).toBeGreaterThan(2);
          expect(indexer!.metrics.lanes?.small.lagSeconds).toBeGreaterThan(2);
        },
        60_000,
        100,
      );
    } finally {
      await ctx.es.indices.putSettings({ index: name!, settings: { 'index.blocks.read_only_allow_delete': null } });
    }
    await eventually(() => expect(indexer!.metrics.lagSeconds).toBe(0), 120_000, 100);
    await indexer.idle();
    await expectIndexMatchesSource(ctx.pool, ctx.es, ctx.index.alias, 1000);
  }, 300_000);

  it('gives a seller behind a burst a lane of its own in the metrics, named by seller', async () => {
    indexer = await start({ burstMin: 200, maxBatch: 500 });
    await indexer.idle();
    await indexer.stop();
    indexer = undefined;
    await reprice(ctx.pool, 8);
    const registry = createRegistry({ processMetrics: false });
    indexer = await start({ burstMin: 200, maxBatch: 500, metrics: indexerMetrics(registry) });
    let text = '';
    await eventually(
      async () => {
        text = await registry.metrics();
        expect(text).toMatch(new RegExp(`indexer_lane_pending_changes\\{lane="burst",seller="${BURST_SELLER}"\\} [1-9]`));
      },
      60_000,
      50,
    );
    expect(text).toMatch(/indexer_lane_lag_seconds\{lane="burst",seller="1"\} /);
    expect(text).toMatch(/indexer_lane_pending_changes\{lane="small",seller=""\} /);
    await indexer.idle();
    await eventually(async () => expect(await registry.metrics()).not.toMatch(/lane="burst"/), 30_000, 100);
  }, 300_000);
});
