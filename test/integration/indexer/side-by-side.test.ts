import { afterEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../../support/context.js';
import { generateScenario } from '../../support/scenario.js';
import { caughtUp, writeBurst } from '../../support/write-burst.js';
import { expectIndexMatchesSource } from '../../support/index-diff.js';
import { loadFixture } from '../../../src/fixtures/load.js';
import { createPool, type Pool } from '../../../src/db/pool.js';
import { createLogger } from '../../../src/lib/logger.js';
import { loadCheckpoint } from '../../../src/db/feed-guard.js';
import { startLiveIndexer, LIVE_CONSUMER, type LiveIndexer } from '../../../indexer/live.js';

// Two live indexers (two `npm run indexer` processes: each its own pool) against one database and
// index take turns, batch by batch, from the checkpoint as saved: every change is indexed once,
// the checkpoint only moves forward, and the index ends equal to PostgreSQL.

let ctx: TestContext | undefined;
const running: { indexer: LiveIndexer; pool: Pool }[] = [];

afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.indexer.stop();
    await r.pool.end();
  }
  await ctx?.close();
  ctx = undefined;
});

async function startIndexer(c: TestContext): Promise<LiveIndexer> {
  const pool = createPool(c.databaseUrl, 4);
  const indexer = await startLiveIndexer({
    pool,
    es: c.es,
    index: c.index,
    logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'indexer'),
    databaseUrl: c.databaseUrl,
    pollMs: 200,
  });
  running.push({ indexer, pool });
  return indexer;
}

describe('two live indexers side by side', () => {
  it('index each change once, never move the checkpoint back, and leave the index equal to PostgreSQL', async () => {
    ctx = await createTestContext();
    const c = ctx;
    await loadFixture(c.pool, generateScenario(7, { products: 150, listings: 1500 }).fixture);
    // Every save of the live checkpoint, as the database saw it.
    await c.pool.query(`
      CREATE TABLE checkpoint_moves (from_xid xid8, from_id bigint, to_xid xid8, to_id bigint);
      CREATE FUNCTION record_checkpoint_move() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO checkpoint_moves VALUES (OLD.xid, OLD.id, NEW.xid, NEW.id);
        RETURN NEW;
      END $$;
      CREATE TRIGGER record_checkpoint_move BEFORE UPDATE ON feed_checkpoints
        FOR EACH ROW WHEN (OLD.consumer = '${LIVE_CONSUMER}') EXECUTE FUNCTION record_checkpoint_move();`);

    // Started together: one builds the index, the other finds it built.
    const [a, b] = await Promise.all([startIndexer(c), startIndexer(c)]);
    await Promise.all([a.idle(), b.idle()]);
    const start = (await loadCheckpoint(c.pool, LIVE_CONSUMER))!;
    const consumedBefore = a.metrics.changes + b.metrics.changes;

    await writeBurst(c.pool, { transactions: 600, concurrency: 6, seed: 21 });
    await caughtUp(c.pool, LIVE_CONSUMER, 120_000);
    await Promise.all([a.idle(), b.idle()]);

    const { rows: feed } = await c.pool.query(`SELECT count(*)::int AS n FROM change_feed WHERE (xid, id) > ($1::xid8, $2::bigint)`, [
      start.xid,
      start.id,
    ]);
    expect(feed[0].n).toBeGreaterThan(600);
    expect(a.metrics.changes + b.metrics.changes - consumedBefore).toBe(feed[0].n);
    const { rows: moves } = await c.pool.query(
      `SELECT count(*)::int AS saves, count(*) FILTER (WHERE (to_xid, to_id) < (from_xid, from_id))::int AS backwards FROM checkpoint_moves`,
    );
    expect(moves[0].saves).toBeGreaterThan(1);
    expect(moves[0].backwards).toBe(0);
    expect(await c.es.indices.getAlias({ name: c.index.alias }).then(Object.keys)).toHaveLength(1);
    await expectIndexMatchesSource(c.pool, c.es, c.index.alias, 1000);
  });
});
