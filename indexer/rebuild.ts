import type { Client } from '@elastic/elasticsearch';
import { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { holdIndex } from '../src/db/index-holds.js';
import { quarantine, quarantineClock, releaseRefusedBefore, type Refusal } from '../src/db/index-quarantine.js';
import { SNAPSHOT, withTransaction, type Pool, type PoolClient } from '../src/db/pool.js';
import type { IndexNames } from '../src/es/index-names.js';
import type { Logger } from '../src/lib/logger.js';
import { documentBound, idsPage, nativeRowsPage, poBoxSuspended, type Pair } from '../src/db/offer-source.js';
import { nativeOfferDocs } from '../src/search/documents/builders.js';
import { cardDoc, cardFolds, foldOffer, type CardFold, type CardFolds } from '../src/search/documents/card-fold.js';
import { docId } from '../src/search/documents/model.js';
import { CHUNK, ownOps, type DocOp } from './build-ops.js';
import { loadFacts, loadLookups, snapshotCache, type Chunk, type SnapshotCache } from './facts.js';
import { bodyPool, sendBodies, serializeOps, writeSerialized, type BodyPool, type BulkBody } from './bulk.js';
import { createIndex, finishBulkLoad, indicesBehind, swapAlias, waitForAllocation } from './index-admin.js';
import { dropCheckpoint, horizon, loadCheckpoint, saveCheckpoint, type Position } from '../src/db/feed-guard.js';
import { withBatchLock } from './batch-lock.js';
import { catchUp, FEED_BATCH } from './catch-up.js';
import { MASS_REFUSAL_MIN } from './quarantine.js';
import { DEFAULT_WARM_UP, warmUpIndex, type WarmUpOptions } from '../src/search/warm-up.js';

export interface RebuildProgress {
  /**
   * `allocation`: waiting until every primary and replica of the new index is allocated (green);
   * `warm-up`: the new index is asked the searches storefronts ask most before the swap.
   */
  phase: 'snapshot' | 'catch-up' | 'allocation' | 'warm-up' | 'swap' | 'done';
  done: number;
  total: number;
  /** Documents quarantined so far: Elasticsearch refused them for a reason of their own. */
  quarantined?: number;
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
  /** The warm-up before the swap (src/search/warm-up.ts); false: none (tests of tiny indexes). */
  warmUp?: WarmUpOptions | false;
  /** Stops the rebuild before its swap (SIGINT, SIGTERM, a stopping indexer); it deletes its index. */
  signal?: AbortSignal;
  /**
   * Told the concrete index this rebuild builds once it holds the name, before the index exists:
   * anyone who can see the index can then already know its name (a stopped rebuild deletes it).
   */
  onIndex?: (name: string) => void;
}

export interface RebuildResult {
  index: string;
  docs: number;
  snapshotMs: number;
  totalMs: number;
  replayedChanges: number;
  /** Documents Elasticsearch refused (quarantined, not in the new index): how many, and the first QUARANTINE_SAMPLE. */
  quarantined: number;
  quarantinedSample: Refusal[];
}

/** More documents than this share of a snapshot refused stops the rebuild before its swap. */
const MAX_REFUSED_SHARE = 0.01;

/** Refused documents a rebuild's result names (all are in the index_quarantine table). */
export const QUARANTINE_SAMPLE = 20;

/**
 * Zero-downtime rebuild: a fresh concrete index is loaded from one consistent PostgreSQL snapshot,
 * then the change feed is replayed from a position taken before the snapshot (so nothing committed
 * meanwhile is lost), and the alias is swapped atomically under the batch lock. Readers keep using
 * the old index until the swap. A rebuild that stops before its swap (an error, `signal`) deletes
 * its index; while it runs it holds it (src/db/index-holds.ts), so `npm run indices -- --prune`
 * leaves it alone, and prunes it if the rebuild was killed before it could delete it.
 */
export async function rebuild(opts: RebuildOptions): Promise<RebuildResult> {
  const { pool, es, index, logger } = opts;
  const started = Date.now();
  const name = index.concrete(`${Date.now()}`);
  const consumer = `rebuild:${name}`;
  // Held before it exists. A hold whose connection fails holds nothing: the rebuild stops.
  const hold = await holdIndex(pool, name);
  const lost = new AbortController();
  hold.onLost((err) => lost.abort(new Error(`the hold on ${name} was lost: ${err.message}`)));
  const signal = opts.signal ? AbortSignal.any([opts.signal, lost.signal]) : lost.signal;

  let docs = 0;
  const refused: Refusal[] = [];
  let quarantined = 0;
  try {
    // Rows refused before this point and not again by this rebuild are released at its swap.
    const startedAt = await quarantineClock(pool);
    opts.onIndex?.(name);
    await createIndex(es, name, { bulkLoad: true, layout: index.layout, signal });
    // Registered before the snapshot: every change the snapshot misses sits above this position,
    // and the checkpoint row keeps feed pruning from deleting what the replay still needs.
    const start = await horizon(pool);
    await saveCheckpoint(pool, consumer, start);
    logger.info({ index: name, start }, 'rebuild: loading snapshot');
    await opts.beforeSnapshot?.();
    docs = await loadSnapshot(pool, es, name, opts.onProgress, signal, refused);
    quarantined = new Set(refused.map((r) => r.id)).size;
    if (quarantined > 0) logger.warn({ index: name, quarantined, first: refused[0] }, 'rebuild: Elasticsearch refused documents');
    // A new index refusing a large share is a mapping at fault, not documents: no swap to it.
    if (quarantined > Math.max(MASS_REFUSAL_MIN, docs * MAX_REFUSED_SHARE)) {
      throw new Error(
        `rebuild: Elasticsearch refused ${quarantined} of ${docs + quarantined} documents (first ${refused[0]!.id}: ${refused[0]!.reason}); the alias keeps its index`,
      );
    }
    await quarantine(pool, refused);
    const snapshotMs = Date.now() - started;
    logger.info({ index: name, docs, ms: snapshotMs }, 'rebuild: snapshot loaded, replaying changes');

    opts.onProgress?.({ phase: 'catch-up', done: 0, total: 0, quarantined });
    let position: Position = start;
    let replayed = 0;
    // Most of the replay runs beside the live indexer; the last pass holds the batch lock.
    for (;;) {
      signal.throwIfAborted();
      const r = await catchUp(pool, es, name, position, consumer);
      position = r.position;
      replayed += r.changes;
      quarantined += r.quarantined;
      if (r.changes < FEED_BATCH) break;
    }
    // Never swap to an index missing a copy (a node lost during the load): readers would get an
    // index less safe than the settings ask for. An AllocationError keeps the old one serving.
    opts.onProgress?.({ phase: 'allocation', done: 0, total: 0 });
    const green = await waitForAllocation(es, name, { signal });
    logger.info({ index: name, waitedMs: green.ms }, 'rebuild: every shard copy allocated (green)');
    // Searchable now (refresh on, eager global ordinals built by the refresh), then warmed: the
    // first buyers after the swap meet an index already asked what they ask most.
    await finishBulkLoad(es, name);
    if (opts.warmUp !== false) {
      opts.onProgress?.({ phase: 'warm-up', done: 0, total: 0 });
      const w = await warmUpIndex(es, name, opts.warmUp ?? DEFAULT_WARM_UP, signal);
      logger.info({ index: name, ...w }, 'rebuild: new index warmed up');
    }
    signal.throwIfAborted();
    await withBatchLock(pool, async () => {
      signal.throwIfAborted();
      opts.onProgress?.({ phase: 'swap', done: 0, total: 0 });
      for (;;) {
        const r = await catchUp(pool, es, name, position, consumer);
        position = r.position;
        replayed += r.changes;
        quarantined += r.quarantined;
        if (r.changes === 0) break;
      }
      await releaseRefusedBefore(pool, startedAt);
      await es.indices.refresh({ index: name });
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
    opts.onProgress?.({ phase: 'done', done: docs, total: docs, quarantined });
    return {
      index: name,
      docs,
      snapshotMs,
      totalMs: Date.now() - started,
      replayedChanges: replayed,
      quarantined,
      quarantinedSample: refused.slice(0, QUARANTINE_SAMPLE),
    };
  } catch (err) {
    await dropCheckpoint(pool, consumer).catch(() => undefined);
    const deleted = await deleteIndex(es, name);
    // Not deleted (the cluster unreachable): it stays an orphan until `npm run indices -- --prune`.
    logger.warn(
      { index: name, deleted, err: (err as Error).message },
      deleted ? 'rebuild stopped; its index deleted' : 'rebuild stopped; its index could not be deleted',
    );
    throw err;
  } finally {
    await hold.release();
  }
}

/** How long a stopped rebuild keeps trying to delete its index. */
const DELETE_TRIES = 8;

/**
 * Deletes `name` and makes sure it is gone: a busy master can time a delete out (the index is
 * then deleted later, or not at all), so each try waits for the master longer than the client's
 * default and the index's absence is checked before giving up. False if it may still exist.
 */
async function deleteIndex(es: Client, name: string): Promise<boolean> {
  for (let attempt = 0; attempt < DELETE_TRIES; attempt++) {
    await es.indices.delete({ index: name, master_timeout: '60s', timeout: '60s' }, { ignore: [404], requestTimeout: 90_000 }).catch(() => undefined);
    const exists = await es.indices.exists({ index: name }).catch(() => true);
    if (!exists) return true;
    await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** attempt, 5000)));
  }
  return false;
}

/** Bulk bodies built and serialized ahead of the requests in flight. */
export const SNAPSHOT_PREFETCH = 3;
/**
 * Bulk requests of a snapshot load in flight at once. Two, so Elasticsearch has the next body
 * while this process's one thread is busy serializing (during which a finished request cannot
 * be followed up): BENCHMARKS.md, "the rebuild with product cards, and two bulk requests in flight".
 */
export const SNAPSHOT_BULK_CONCURRENCY = 2;

/**
 * Writes every document of one REPEATABLE READ snapshot as a stream pipeline: the snapshot's
 * chunks, serialized into bulk bodies up to SNAPSHOT_PREFETCH ahead (the Readable's buffer), sent
 * SNAPSHOT_BULK_CONCURRENCY at a time. So Elasticsearch never waits for PostgreSQL or for document
 * building unless they are the slower side, and an error of either side stops both.
 */
async function loadSnapshot(
  pool: Pool,
  es: Client,
  name: string,
  onProgress: ((p: RebuildProgress) => void) | undefined,
  signal: AbortSignal,
  refused: Refusal[],
): Promise<number> {
  let done = 0;
  return withTransaction(
    pool,
    async (db) => {
      const total = await documentBound(db);
      const poBox = await poBoxSuspended(db);
      const send = sendBodies(
        (body) => writeSerialized(es, body),
        SNAPSHOT_BULK_CONCURRENCY,
        (body, refusals) => {
          done += body.items - refusals.length;
          refused.push(...refusals);
          onProgress?.({ phase: 'snapshot', done, total, quarantined: refused.length });
        },
      );
      const bodies = Readable.from(bulkBodies(snapshotChunks(db, poBox), name, bodyPool()), { highWaterMark: SNAPSHOT_PREFETCH });
      try {
        await pipeline(bodies, send, { signal });
      } finally {
        // pipeline() settles on the first error without waiting for the other stages to stop: the
        // snapshot's reads (on this transaction's connection) and the requests in flight end first.
        await Promise.all([finished(bodies).catch(() => undefined), send.settled()]);
      }
      return done;
    },
    SNAPSHOT,
  );
}

/** Each chunk as its bulk body, in a buffer of `pool`. */
async function* bulkBodies(chunks: AsyncIterable<SnapshotChunk>, index: string, pool?: BodyPool): AsyncGenerator<BulkBody> {
  for await (const chunk of chunks) yield serializeOps(index, chunk.ops, pool);
}

/** One bulk request's worth of a snapshot: which documents, and their ops. */
export interface SnapshotChunk {
  kind: 'offer' | 'card' | 'product' | 'sku' | 'seller';
  /** Iterated once, by the serializer (cards are built as it reaches them). */
  ops: Iterable<DocOp>;
}

/**
 * Every document of the snapshot `db` reads in, as chunks of at most CHUNK (no removals), in four
 * steps. Seller and product facts are read once per snapshot (SnapshotCache).
 */
export async function* snapshotChunks(db: PoolClient, poBox: boolean): AsyncGenerator<SnapshotChunk> {
  const cache = snapshotCache();
  const folds = cardFolds();
  // 1. Native offers: keyset pages of live, matched listings, folded into their products' cards
  //    as they pass (a product's offers are spread over many pages).
  yield* nativeOfferChunks(db, poBox, cache, folds);
  // 2. Handoff offers, folded the same way.
  yield* tableChunks(db, 'handoff_variants', 'offer', (variantIds) => ({ kind: 'handoff', variantIds }), poBox, cache, folds);
  // 3. Cards, after the last offer: one per product with a shown offer.
  yield* cardChunks(folds);
  // 4. Products, skus and sellers.
  yield* tableChunks(db, 'products', 'product', (productIds) => ({ kind: 'product', productIds }), poBox, cache);
  yield* tableChunks(db, 'skus', 'sku', (skuIds) => ({ kind: 'sku', skuIds }), poBox, cache);
  yield* tableChunks(db, 'sellers', 'seller', (sellerIds) => ({ kind: 'seller', sellerIds }), poBox, cache);
}

async function* nativeOfferChunks(db: PoolClient, poBox: boolean, cache: SnapshotCache, folds: CardFolds): AsyncGenerator<SnapshotChunk> {
  let after: Pair | null = null;
  for (;;) {
    const rows = await nativeRowsPage(db, after, CHUNK);
    if (rows.length === 0) return;
    const l = await loadLookups(db, { sellerIds: rows.map((r) => r.listing.sellerId), productIds: rows.map((r) => r.sku.productId) }, cache);
    yield { kind: 'offer', ops: folded(folds, nativeOfferDocs(rows, l.sellers, l.products, poBox)) };
    const last = rows[rows.length - 1]!.listing;
    after = { sellerId: last.sellerId, skuId: last.skuId };
  }
}

/** Keyset pages of a table's ids, each built as a chunk of that kind would be live (no cards), folded when `folds` is given. */
async function* tableChunks(
  db: PoolClient,
  table: 'handoff_variants' | 'products' | 'skus' | 'sellers',
  kind: SnapshotChunk['kind'],
  chunkOf: (ids: number[]) => Chunk,
  poBox: boolean,
  cache: SnapshotCache,
  folds?: CardFolds,
): AsyncGenerator<SnapshotChunk> {
  let last = 0;
  for (;;) {
    const ids = await idsPage(db, table, last, CHUNK);
    if (ids.length === 0) return;
    const chunk = chunkOf(ids);
    const ops = ownOps(chunk, await loadFacts(db, chunk, poBox, { cache })).filter((op) => op.doc !== null);
    yield { kind, ops: folds ? folded(folds, ops) : ops };
    last = ids[ids.length - 1]!;
  }
}

/** `ops`, each shown offer among them folded into its product's card. */
function folded(folds: CardFolds, ops: DocOp[]): DocOp[] {
  for (const op of ops) if (op.doc?.docType === 'offer') foldOffer(folds, op.doc);
  return ops;
}

/**
 * The cards of every fold, CHUNK to a chunk. A fold leaves `folds` as its chunk is taken, and its
 * card is built only when the serializer reaches it: a chunk of built cards (tens of megabytes)
 * would outlive young-generation collections and be copied and promoted, and the folds still held
 * are what every full collection marks.
 */
function* cardChunks(folds: CardFolds): Generator<SnapshotChunk> {
  let taken: CardFold[] = [];
  for (const [productId, fold] of folds.products) {
    folds.products.delete(productId);
    taken.push(fold);
    if (taken.length === CHUNK) {
      yield { kind: 'card', ops: cardsWhenRead(taken) };
      taken = [];
    }
  }
  if (taken.length > 0) yield { kind: 'card', ops: cardsWhenRead(taken) };
}

function* cardsWhenRead(taken: readonly CardFold[]): Generator<DocOp> {
  for (const fold of taken) yield { id: docId.card(fold.fields.item.productId), doc: cardDoc(fold) };
}
