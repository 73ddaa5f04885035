import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import type { IndexNames } from '../src/es/index-names.js';
import type { Logger } from '../src/lib/logger.js';
import { idsPage, pairsPage, poBoxSuspended, type Pair } from '../src/db/offer-source.js';
import { CHUNK, handoffOps, nativeOps, productOps, sellerOps, skuOps, type DocOp } from './build-ops.js';
import { writeOps } from './bulk.js';
import { createIndex, finishBulkLoad, indicesBehind, swapAlias } from './index-admin.js';
import { dropCheckpoint, horizon, loadCheckpoint, saveCheckpoint, type Position } from './change-feed.js';
import { withBatchLock } from './batch-lock.js';
import { catchUp } from './catch-up.js';

export interface RebuildProgress {
  phase: 'snapshot' | 'catch-up' | 'swap' | 'done';
  done: number;
  total: number;
}

export interface RebuildOptions {
  pool: Pool;
  es: Client;
  index: IndexNames;
  logger: Logger;
  onProgress?: (p: RebuildProgress) => void;
  /** Keep the previous concrete index after the swap (default: delete it). */
  keepOld?: boolean;
}

export interface RebuildResult {
  index: string;
  docs: number;
  snapshotMs: number;
  totalMs: number;
  replayedChanges: number;
}

/**
 * Zero-downtime rebuild: a fresh concrete index is loaded from one consistent PostgreSQL snapshot,
 * then the change feed is replayed from a position taken before the snapshot (so nothing committed
 * meanwhile is lost), and the alias is swapped atomically under the batch lock. Readers keep using
 * the old index until the swap.
 */
export async function rebuild(opts: RebuildOptions): Promise<RebuildResult> {
  const { pool, es, index, logger } = opts;
  const started = Date.now();
  const name = index.concrete(`${Date.now()}`);
  const consumer = `rebuild:${name}`;
  await createIndex(es, name, { bulkLoad: true });
  // Registered before the snapshot: every change the snapshot misses sits above this position,
  // and the checkpoint row keeps feed pruning from deleting what the replay still needs.
  const start = await horizon(pool);
  await saveCheckpoint(pool, consumer, start);
  logger.info({ index: name, start }, 'rebuild: loading snapshot');

  let docs = 0;
  try {
    docs = await loadSnapshot(pool, es, name, opts.onProgress);
    const snapshotMs = Date.now() - started;
    logger.info({ index: name, docs, ms: snapshotMs }, 'rebuild: snapshot loaded, replaying changes');

    opts.onProgress?.({ phase: 'catch-up', done: 0, total: 0 });
    let position: Position = start;
    let replayed = 0;
    // Most of the replay runs beside the live indexer; the last pass holds the batch lock.
    for (;;) {
      const r = await catchUp(pool, es, name, position, consumer);
      position = r.position;
      replayed += r.changes;
      if (r.changes < 5000) break;
    }
    await withBatchLock(pool, async () => {
      opts.onProgress?.({ phase: 'swap', done: 0, total: 0 });
      for (;;) {
        const r = await catchUp(pool, es, name, position, consumer);
        position = r.position;
        replayed += r.changes;
        if (r.changes === 0) break;
      }
      await finishBulkLoad(es, name);
      const previous = await indicesBehind(es, index.alias);
      await swapAlias(es, index.alias, name, previous);
      if (!(await loadCheckpoint(pool, 'live'))) await saveCheckpoint(pool, 'live', position);
      await dropCheckpoint(pool, consumer);
      if (!opts.keepOld) {
        for (const old of previous.filter((p) => p !== name)) {
          await es.indices.delete({ index: old }).catch((err) => logger.warn({ err, index: old }, 'could not delete old index'));
        }
      }
      logger.info({ index: name, alias: index.alias, previous, replayed }, 'rebuild: alias swapped');
    });
    opts.onProgress?.({ phase: 'done', done: docs, total: docs });
    return { index: name, docs, snapshotMs, totalMs: Date.now() - started, replayedChanges: replayed };
  } catch (err) {
    await dropCheckpoint(pool, consumer).catch(() => undefined);
    await es.indices.delete({ index: name }).catch(() => undefined);
    throw err;
  }
}

/** Writes every document of one REPEATABLE READ snapshot; building the next chunk overlaps writing the last. */
async function loadSnapshot(
  pool: Pool,
  es: Client,
  name: string,
  onProgress?: (p: RebuildProgress) => void,
): Promise<number> {
  const db = await pool.connect();
  let done = 0;
  try {
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM listings) + (SELECT count(*) FROM handoff_variants) + (SELECT count(*) FROM products)
            + (SELECT count(*) FROM skus) + (SELECT count(*) FROM sellers) AS total`,
    );
    const total = Number(rows[0].total);
    const poBox = await poBoxSuspended(db);
    let inflight: Promise<void> = Promise.resolve();
    const emit = async (ops: DocOp[]) => {
      await inflight;
      inflight = writeOps(es, name, ops);
      done += ops.length;
      onProgress?.({ phase: 'snapshot', done, total });
    };

    let after: Pair | null = null;
    for (;;) {
      const page = await pairsPage(db, after, CHUNK);
      if (page.length === 0) break;
      await emit((await nativeOps(db, page, poBox)).filter((op) => op.doc !== null));
      after = page[page.length - 1]!;
    }
    const tables = [
      ['handoff_variants', handoffOps],
      ['products', productOps],
      ['skus', skuOps],
      ['sellers', sellerOps],
    ] as const;
    for (const [table, build] of tables) {
      let last = 0;
      for (;;) {
        const ids = await idsPage(db, table, last, CHUNK);
        if (ids.length === 0) break;
        await emit((await build(db, ids)).filter((op) => op.doc !== null));
        last = ids[ids.length - 1]!;
      }
    }
    await inflight;
    await db.query('COMMIT');
    return done;
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    db.release();
  }
}
