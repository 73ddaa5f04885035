import { afterEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { generateScenario } from '../../support/scenario.js';
import { caughtUp, writeBurst } from '../../support/write-burst.js';
import { expectIndexMatchesSource } from '../../support/index-diff.js';
import { killHard, spawnIndexer } from '../../support/indexer-process.js';
import { startTestIndexer } from '../../support/indexer.js';
import { loadFixture } from '../../../src/fixtures/load.js';
import { rebuild } from '../../../indexer/rebuild.js';
import { indicesBehind } from '../../../indexer/index-admin.js';
import { feedGuard } from '../../../src/db/feed-guard.js';
import { createLogger } from '../../../src/lib/logger.js';
import type { ChildProcess } from 'node:child_process';
import { startEsNode } from '../../support/es-node.js';
import { createEsClient } from '../../../src/es/client.js';
import { startLiveIndexer } from '../../../indexer/live.js';
import { startPgNodeWithDatabase } from '../../support/pg-node.js';
import { createPool } from '../../../src/db/pool.js';
import { indexNames } from '../../../src/es/index-names.js';
import { inject } from 'vitest';

// After a crash or a rebuild under load, the index must equal a fresh computation from
// PostgreSQL: zero missing, zero extra, zero stale documents.

let ctx: TestContext | undefined;
let child: ChildProcess | undefined;

afterEach(async () => {
  if (child) await killHard(child);
  child = undefined;
  await ctx?.close();
  ctx = undefined;
});

async function seeded(): Promise<TestContext> {
  const c = await createTestContext();
  await loadFixture(c.pool, generateScenario(5, { products: 150, listings: 1500 }).fixture);
  return c;
}

describe('indexer fault tolerance', () => {
  it('loses nothing when killed with SIGKILL in the middle of a write burst', async () => {
    ctx = await seeded();
    const env = { DATABASE_URL: ctx.databaseUrl, ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL, INDEX_PREFIX: ctx.env.INDEX_PREFIX };
    child = spawnIndexer(env);
    await caughtUp(ctx.pool, 'live', 120_000);

    const kills: number[] = [];
    let restarted = false;
    const burst = writeBurst(ctx.pool, {
      transactions: 1500,
      concurrency: 6,
      seed: 11,
      onCommit: (n) => {
        // Kill twice mid-burst; restart after each kill once more writes have piled up.
        if ((n === 300 || n === 900) && child) {
          kills.push(n);
          const c = child;
          child = undefined;
          void killHard(c);
          restarted = false;
        }
        if ((n === 500 || n === 1100) && !child && !restarted) {
          restarted = true;
          child = spawnIndexer(env);
        }
      },
    });
    await burst;
    if (!child) child = spawnIndexer(env);
    expect(kills).toEqual([300, 900]);
    await caughtUp(ctx.pool, 'live', 120_000);

    await expectIndexMatchesSource(ctx.pool, ctx.es, ctx.index.alias, 1000);
  }, 300_000);

  it('rebuilds behind the alias while writes continue, with no gap for readers and nothing lost', async () => {
    ctx = await seeded();
    const c = ctx;
    const indexer = await startTestIndexer(c);
    try {
      const before = await indicesBehind(c.es, c.index.alias);
      let reading = true;
      let reads = 0;
      const readerFailures: string[] = [];
      const reader = (async () => {
        while (reading) {
          try {
            const r = await c.es.count({ index: c.index.alias, query: { term: { docType: 'product' } } });
            if (r.count === 0) readerFailures.push('empty');
            reads++;
          } catch (err) {
            readerFailures.push((err as Error).message);
          }
        }
      })();
      const burst = writeBurst(c.pool, { transactions: 800, concurrency: 4, seed: 12 });
      const result = await rebuild({
        pool: c.pool,
        es: c.es,
        index: c.index,
        logger: createLogger('silent'),
        // Writes committed after the start position: on a fast machine the burst alone may end
        // before the rebuild registers it, and then nothing would be replayed. The replay reads
        // only below the feed guard, and a burst transaction stuck in a lock wait (up to
        // deadlock_timeout) holds the guard below these writes; on a loaded machine that can last
        // the whole replay, leaving them to the live indexer after the swap. So wait until the
        // guard has passed them: then the replay's first read must see them.
        beforeSnapshot: async () => {
          await writeBurst(c.pool, { transactions: 10, concurrency: 1, seed: 13 });
          const { rows } = await c.pool.query(`SELECT max(xid)::text AS xid FROM change_feed`);
          const written = BigInt(rows[0].xid);
          while (BigInt(await feedGuard(c.pool)) <= written) await new Promise((r) => setTimeout(r, 20));
        },
      });
      await burst;
      await caughtUp(c.pool, 'live', 120_000);
      reading = false;
      await reader;

      expect(await indicesBehind(c.es, c.index.alias)).toEqual([result.index]);
      expect(result.index).not.toBe(before[0]);
      expect(result.replayedChanges).toBeGreaterThan(0); // writes landed after the start position
      expect(reads).toBeGreaterThan(10);
      expect(readerFailures).toEqual([]);
      await expectIndexMatchesSource(c.pool, c.es, c.index.alias, 1000);
    } finally {
      await indexer.stop();
    }
  }, 300_000);

  it('catches up after an Elasticsearch crash and restart in the middle of a write burst', async () => {
    ctx = await seeded();
    // A throwaway node: the shared cluster must keep serving the other test files.
    const node = await startEsNode();
    const es = createEsClient(node.url, 10_000);
    const indexer = await startLiveIndexer({
      pool: ctx.pool,
      es,
      index: ctx.index,
      logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      databaseUrl: ctx.databaseUrl,
      pollMs: 200,
    });
    try {
      await indexer.idle();
      let restart: Promise<void> | undefined;
      await writeBurst(ctx.pool, {
        transactions: 900,
        concurrency: 4,
        seed: 13,
        onCommit: (n) => {
          if (n === 200)
            restart = node
              .kill()
              .then(() => new Promise((r) => setTimeout(r, 3000)))
              .then(() => node.restart());
        },
      });
      await restart;
      await caughtUp(ctx.pool, 'live', 120_000);
      expect(indexer.metrics.errors).toBeGreaterThan(0); // the outage was seen and retried
      expect(indexer.metrics.bulkFailures).toBeGreaterThan(0); // counted as the cluster's failures
      await expectIndexMatchesSource(ctx.pool, es, ctx.index.alias, 1000);
    } finally {
      await indexer.stop();
      await es.close();
      await node.destroy();
    }
    // A throwaway Elasticsearch node starts, and is killed and started again: 58 s alone on a
    // loaded machine, past the default 120 s when the whole suite runs beside it.
  }, 300_000);

  it('catches up after a PostgreSQL crash and restart while it is indexing', async () => {
    // A throwaway server: restarting the shared one would break the other test files.
    const { node, databaseUrl } = await startPgNodeWithDatabase();
    const pool = createPool(databaseUrl, 8);
    const es = createEsClient(inject('elasticsearchUrl'), 30_000);
    const index = indexNames(`${inject('runId')}_pgrestart`);
    await loadFixture(pool, generateScenario(6, { products: 150, listings: 1500 }).fixture);
    const indexer = await startLiveIndexer({
      pool,
      es,
      index,
      logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
      databaseUrl,
      pollMs: 200,
    });
    try {
      await indexer.idle();
      await writeBurst(pool, { transactions: 400, concurrency: 4, seed: 14 });
      // The indexer is still working through the burst when the server goes away.
      await node.crashAndRestart(2000);
      await writeBurst(pool, { transactions: 300, concurrency: 4, seed: 15 });
      await caughtUp(pool, 'live', 120_000);
      expect(indexer.metrics.errors).toBeGreaterThan(0); // the outage was seen and retried
      expect(indexer.metrics.bulkFailures).toBe(0); // PostgreSQL's, not the cluster's
      await expectIndexMatchesSource(pool, es, index.alias, 1000);
    } finally {
      await indexer.stop();
      await pool.end();
      await es.close();
      node.destroy();
    }
  }, 300_000);
});
