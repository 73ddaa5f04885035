import type { Client } from '@elastic/elasticsearch';
import { SNAPSHOT, withTransaction, type Pool, type PoolClient } from '../src/db/pool.js';
import type { IndexNames } from '../src/es/index-names.js';
import type { Logger } from '../src/lib/logger.js';
import { idsPage, nativeRowsPage, poBoxSuspended, type Pair } from '../src/db/offer-source.js';
import { CHUNK, handoffOps, offerOpsOfRows, productOps, sellerOps, skuOps, snapshotFacts, type DocOp } from './build-ops.js';
import { cardDoc, cardFolds, docId, foldOffer, type CardFold, type CardFolds } from '../src/search/documents.js';
import { bodyPool, serializeOps, writeSerialized, type BulkBody } from './bulk.js';
import { createIndex, finishBulkLoad, indicesBehind, swapAlias, waitForAllocation } from './index-admin.js';
import { dropCheckpoint, horizon, loadCheckpoint, saveCheckpoint, type Position } from '../src/db/feed-guard.js';
import { withBatchLock } from './batch-lock.js';
import { catchUp } from './catch-up.js';

export interface RebuildProgress {
  /** `allocation`: waiting until every primary and replica of the new index is allocated (green). */
  phase: 'snapshot' | 'catch-up' | 'allocation' | 'swap' | 'done';
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
  /**
   * Awaited after the start position is registered and before the snapshot is read: whatever
   * commits in it must reach the new index through the replay (the fault test writes here, so
   * its check that writes were replayed does not depend on timing).
   */
  beforeSnapshot?: () => Promise<void>;
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
  await createIndex(es, name, { bulkLoad: true, layout: index.layout });
  // Registered before the snapshot: every change the snapshot misses sits above this position,
  // and the checkpoint row keeps feed pruning from deleting what the replay still needs.
  const start = await horizon(pool);
  await saveCheckpoint(pool, consumer, start);
  logger.info({ index: name, start }, 'rebuild: loading snapshot');

  let docs = 0;
  try {
    await opts.beforeSnapshot?.();
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
    // Never swap to an index missing a copy (a node lost during the load): readers would get an
    // index less safe than the settings ask for. An AllocationError keeps the old one serving.
    opts.onProgress?.({ phase: 'allocation', done: 0, total: 0 });
    const green = await waitForAllocation(es, name);
    logger.info({ index: name, waitedMs: green.ms }, 'rebuild: every shard copy allocated (green)');
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

/** Chunks built and serialized ahead of the bulk requests in flight. */
export const SNAPSHOT_PREFETCH = 3;
/**
 * Bulk requests of a snapshot load in flight at once. Two, so Elasticsearch has the next body
 * while this process's one thread is busy serializing (during which a finished request cannot
 * be followed up): BENCHMARKS.md, "the rebuild with product cards, and two bulk requests in flight".
 */
export const SNAPSHOT_BULK_CONCURRENCY = 2;

/**
 * Writes every document of one REPEATABLE READ snapshot. A producer reads and builds chunks and
 * serializes their bulk bodies up to SNAPSHOT_PREFETCH ahead while SNAPSHOT_BULK_CONCURRENCY writers
 * send them, so Elasticsearch never waits for PostgreSQL or for document building unless they are the
 * slower side. Seller and product facts are read once per snapshot (snapshotFacts).
 */
async function loadSnapshot(pool: Pool, es: Client, name: string, onProgress?: (p: RebuildProgress) => void): Promise<number> {
  let done = 0;
  return withTransaction(
    pool,
    async (db) => {
      const { rows } = await db.query(
        `SELECT (SELECT count(*) FROM listings) + (SELECT count(*) FROM handoff_variants) + (SELECT count(*) FROM products)
            + (SELECT count(*) FROM skus) + (SELECT count(*) FROM sellers)
            + (SELECT count(*) FROM products) /* cards: at most one per product */ AS total`,
      );
      const total = Number(rows[0].total);
      const poBox = await poBoxSuspended(db);
      const bodies = bodyPool();
      await pipelined<BulkBody>(
        async (push) => {
          for await (const ops of snapshotChunks(db, poBox)) await push(serializeOps(name, ops, bodies));
        },
        async (body) => {
          await writeSerialized(es, body);
          body.release?.();
          done += body.items;
          onProgress?.({ phase: 'snapshot', done, total });
        },
        SNAPSHOT_PREFETCH,
      );
      return done;
    },
    SNAPSHOT,
  );
}

/**
 * Every document of the snapshot `db` reads in, as chunks of at most CHUNK (no deletes). Offers
 * are folded into their products' cards as they stream past (a product's offers are spread over
 * many chunks); the cards follow the last offer. A card is built when its op's `doc` is read (by
 * the serializer) and its fold is dropped then: a chunk of built cards (~30 MB of objects) would
 * outlive young-generation collections and be copied and promoted, and the folds still held are
 * what every full collection marks.
 */
export async function* snapshotChunks(db: PoolClient, poBox: boolean): AsyncGenerator<DocOp[]> {
  const facts = snapshotFacts();
  const folds = cardFolds();
  const folding = (ops: DocOp[]) => {
    for (const op of ops) if (op.doc?.docType === 'offer') foldOffer(folds, op.doc);
    return ops;
  };
  let after: Pair | null = null;
  for (;;) {
    const page = await nativeRowsPage(db, after, CHUNK);
    if (page.length === 0) break;
    yield folding(await offerOpsOfRows(db, page, poBox, facts));
    const last = page[page.length - 1]!.listing;
    after = { sellerId: last.sellerId, skuId: last.skuId };
  }
  let lastVariant = 0;
  for (;;) {
    const ids = await idsPage(db, 'handoff_variants', lastVariant, CHUNK);
    if (ids.length === 0) break;
    yield folding((await handoffOps(db, ids, facts)).filter((op) => op.doc !== null));
    lastVariant = ids[ids.length - 1]!;
  }
  let cards: DocOp[] = [];
  for (const [productId, f] of folds.products) {
    cards.push(lazyCardOp(folds, productId, f));
    if (cards.length === CHUNK) {
      yield cards;
      cards = [];
    }
  }
  if (cards.length > 0) yield cards;
  folds.products.clear();
  const tables = [
    ['products', productOps],
    ['skus', skuOps],
    ['sellers', sellerOps],
  ] as const;
  for (const [table, build] of tables) {
    let last = 0;
    for (;;) {
      const ids = await idsPage(db, table, last, CHUNK);
      if (ids.length === 0) break;
      yield (await build(db, ids, facts)).filter((op) => op.doc !== null);
      last = ids[ids.length - 1]!;
    }
  }
}

/** The card op of one fold: built when read, and read once (the fold is let go). */
function lazyCardOp(folds: CardFolds, productId: number, f: CardFold): DocOp {
  return {
    id: docId.card(productId),
    get doc() {
      folds.products.delete(productId);
      return cardDoc(f);
    },
  };
}

/**
 * Runs `produce` and `consume` side by side: produce's items wait in a queue of at most `depth`
 * (push waits while it is full); consume takes them in order, SNAPSHOT_BULK_CONCURRENCY at a time.
 * The first error of either side stops both and is thrown.
 */
async function pipelined<T>(
  produce: (push: (item: T) => Promise<void>) => Promise<void>,
  consume: (item: T) => Promise<void>,
  depth: number,
): Promise<void> {
  const queue: T[] = [];
  let ended = false;
  let failure: { err: unknown } | null = null;
  let consumers: (() => void)[] = [];
  let producers: (() => void)[] = [];
  const wake = (which: 'consumers' | 'producers') => {
    const ws = which === 'consumers' ? consumers : producers;
    if (which === 'consumers') consumers = [];
    else producers = [];
    for (const w of ws) w();
  };
  const fail = (err: unknown) => {
    failure ??= { err };
    wake('consumers');
    wake('producers');
  };

  const producer = produce(async (item) => {
    while (queue.length >= depth && !failure) await new Promise<void>((r) => producers.push(r));
    if (failure) throw failure.err;
    queue.push(item);
    wake('consumers');
  }).then(() => {
    ended = true;
    wake('consumers');
  }, fail);

  const worker = async () => {
    for (;;) {
      if (failure) return;
      const item = queue.shift();
      if (item === undefined) {
        if (ended) return;
        await new Promise<void>((r) => consumers.push(r));
        continue;
      }
      wake('producers');
      try {
        await consume(item);
      } catch (err) {
        fail(err);
        return;
      }
    }
  };
  await Promise.all([producer, ...Array.from({ length: SNAPSHOT_BULK_CONCURRENCY }, worker)]);
  if (failure) throw (failure as { err: unknown }).err;
}
