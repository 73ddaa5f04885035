import { errors as esErrors, type Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import { listen } from '../src/db/listen.js';
import type { IndexNames } from '../src/es/index-names.js';
import { failedRequest } from '../src/es/client.js';
import type { Logger } from '../src/lib/logger.js';
import { feedBacklog, pruneFeed } from '../src/db/change-feed.js';
import { loadCheckpoint, START } from '../src/db/feed-guard.js';
import { catchUp, FEED_BATCH, MAX_FEED_BATCH, type Batch } from './catch-up.js';
import type { OrderedWriter } from './ordered-writer.js';
import { stepTimes } from './step-times.js';
import { later, smallLane, smallLanePass, type SmallLane } from './small-lane.js';
import { withBatchLock, withBuildLock } from './batch-lock.js';
import { indexedVersion, indicesBehind, mappingVersion } from './index-admin.js';
import { rebuild } from './rebuild.js';
import { BulkError } from './bulk.js';
import { indexerMetrics, type IndexerMetrics } from './metrics.js';
import { createWake } from '../src/lib/wake.js';
import { quarantineSize } from '../src/db/index-quarantine.js';

export const LIVE_CONSUMER = 'live';

export interface LiveIndexerOptions {
  pool: Pool;
  es: Client;
  index: IndexNames;
  logger: Logger;
  databaseUrl: string;
  /** Safety-net poll; NOTIFY is only a hint (it is lost while nobody listens). */
  pollMs?: number;
  /**
   * While changes keep coming, a batch starts at most this long after the previous one started,
   * so it takes whatever arrived meanwhile: one round of fact queries and one bulk request for
   * many changes instead of one for each (docs/search-design.md "Changes while buyers search").
   * The first change after a quiet spell is taken at once.
   */
  gatherMs?: number;
  /** Where the indexer counts (default: metrics of its own, in a registry nobody scrapes). */
  metrics?: IndexerMetrics;
  /** How often the backlog is read from the feed (the lag and backlog metrics, the burst lanes). */
  backlogPollMs?: number;
  /** Changes of one seller waiting behind the checkpoint that make it a burst (its own lane). */
  burstMin?: number;
  /** Feed rows per batch at most (MAX_FEED_BATCH by default). */
  maxBatch?: number;
}

/** Defaults of the options above. */
export const DEFAULT_BACKLOG_POLL_MS = 1000;
export const DEFAULT_BURST_MIN = 1000;
/** Documents per unit of a live batch (and the cards of their products). */
const LIVE_CHUNK = 500;
/** Burst lanes at most (the sellers with the largest backlogs); the metrics' label values stay few. */
const MAX_BURSTS = 5;

/** INDEXER_GATHER_MS's default. */
export const DEFAULT_GATHER_MS = 250;

export interface LiveIndexer {
  metrics: IndexerMetrics;
  /** Resolves when the checkpoint has passed every change committed before the call. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Feed rows consumed between two prunes of the change feed. */
const PRUNE_EVERY = 50_000;

/**
 * The long-lived indexer: builds the index when the alias is missing or outdated, then follows the
 * change feed. NOTIFY (pg-listen) wakes it at once; a poll covers lost notifications, reconnects
 * and changes held back behind an older open transaction. Errors (Elasticsearch or PostgreSQL
 * down) back off and retry; the checkpoint only moves after a successful write. Several may run
 * against one database and index: each batch starts from the saved checkpoint under the batch
 * lock, so they take turns and never redo each other's batches.
 */
export async function startLiveIndexer(opts: LiveIndexerOptions): Promise<LiveIndexer> {
  const metrics = opts.metrics ?? indexerMetrics();
  // Stopping aborts a first build in progress (it deletes its index) instead of waiting for it.
  const stopping = new AbortController();
  const wake = createWake();
  // A waiter is answered by an empty batch begun after it asked (its wake() starts one at once):
  // an empty batch begun before may have read the feed before the caller's last commit.
  let idleWaiters: { after: number; resolve: () => void }[] = [];
  let batchesBegun = 0;
  let stopped = false;
  const subscriber = listen(opts.databaseUrl, 'change_feed', opts.logger, () => wake.wake());
  const lane = smallLane();
  metrics.smallLane = lane;
  // When the loop last found nothing left: a backlog read begun before is stale and dropped.
  const caughtUpAt = { at: 0 };
  const backlog = watchBacklog(opts, metrics, lane, caughtUpAt, () => stopped);

  async function follow(): Promise<void> {
    let backoff = 200;
    let ready = false;
    let sincePrune = 0;
    while (!stopped) {
      try {
        if (!ready) {
          await ensureIndex(opts, metrics, stopping.signal);
          ready = true;
          metrics.quarantineSize = await quarantineSize(opts.pool);
          opts.logger.info({ checkpoint: await loadCheckpoint(opts.pool, LIVE_CONSUMER) }, 'indexer following the change feed');
        }
        const started = Date.now();
        const seq = ++batchesBegun;
        // While a backlog waits, larger batches: fewer round trips and checkpoints per change.
        const limit = Math.min(opts.maxBatch ?? MAX_FEED_BATCH, Math.max(FEED_BATCH, metrics.pending));
        const batch = await nextBatch(opts, lane, limit);
        backoff = 200;
        if (batch.changes > 0) {
          await recordBatch(opts, metrics, batch, Date.now() - started);
          if ((sincePrune += batch.changes) > PRUNE_EVERY) {
            sincePrune = 0;
            opts.logger.debug({ pruned: await pruneFeed(opts.pool) }, 'change feed pruned');
          }
          // A full batch means a backlog: no pause. Otherwise let the next changes gather.
          const gather = (opts.gatherMs ?? DEFAULT_GATHER_MS) - (Date.now() - started);
          if (!batch.full && gather > 0) await sleep(gather);
          continue;
        }
        // Caught up: nothing committed before this batch's read is left.
        metrics.lagSeconds = 0;
        metrics.pending = 0;
        metrics.lanes = { total: { pending: 0, lagSeconds: 0 }, bursts: [], small: { pending: 0, lagSeconds: 0 } };
        caughtUpAt.at = performance.now();
        lane.bursts = [];
        lane.ahead = null;
        const answered = idleWaiters.filter((w) => w.after < seq);
        idleWaiters = idleWaiters.filter((w) => w.after >= seq);
        answered.forEach((w) => w.resolve());
        await wake.wait(opts.pollMs ?? 500);
      } catch (err) {
        if (stopped) break;
        metrics.errors += 1;
        // The lane starts again at the checkpoint: what it read ahead may not have been written.
        lane.ahead = null;
        if (err instanceof BulkError || err instanceof esErrors.ElasticsearchClientError) metrics.bulkFailures += 1;
        opts.logger.warn({ err: (err as Error).message, request: failedRequest(err), retryInMs: backoff }, 'indexing batch failed; will retry');
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  const running = follow();
  return {
    metrics,
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push({ after: batchesBegun, resolve });
        wake.wake();
      }),
    stop: async () => {
      stopped = true;
      stopping.abort(new Error('the indexer is stopping'));
      wake.wake();
      await running;
      await backlog;
      await subscriber.close().catch(() => undefined);
    },
  };
}

/**
 * One batch, under the batch lock, from the checkpoint as saved: whichever indexer ran the last
 * batch, this one starts where it ended, and none saves a position behind another's.
 */
function nextBatch({ pool, es, index }: LiveIndexerOptions, lane: SmallLane, limit: number): Promise<Batch> {
  return withBatchLock(pool, async () => {
    const from = (await loadCheckpoint(pool, LIVE_CONSUMER)) ?? START;
    const times = stepTimes();
    // Between the batch's units, the small lane's turn (small-lane.ts).
    const between = (writer: OrderedWriter) => smallLanePass(pool, es, index.alias, lane, from, writer, times);
    // Units smaller than a rebuild's: a small change whose card is in the burst's unit in flight
    // waits for less (units of 2,000 and one in flight measured worse, docs/indexing.md).
    const chunk = () => LIVE_CHUNK;
    return catchUp(pool, es, index.alias, from, LIVE_CONSUMER, { limit, between, times, chunk });
  });
}

/**
 * Reads the backlog from the feed every `backlogPollMs`, whatever the batches do: the lag and
 * backlog metrics show a stall within a poll even while every batch fails, and the sellers behind
 * a burst get lanes of their own (the small lane skips them). Ends once `stopped()`.
 */
async function watchBacklog(
  opts: LiveIndexerOptions,
  metrics: IndexerMetrics,
  lane: SmallLane,
  caughtUp: { at: number },
  stopped: () => boolean,
): Promise<void> {
  const every = opts.backlogPollMs ?? DEFAULT_BACKLOG_POLL_MS;
  let failing = false;
  while (!stopped()) {
    try {
      const begun = performance.now();
      const checkpoint = await loadCheckpoint(opts.pool, LIVE_CONSUMER);
      const b = checkpoint && (await feedBacklog(opts.pool, checkpoint, later(lane.ahead, checkpoint), opts.burstMin ?? DEFAULT_BURST_MIN, MAX_BURSTS));
      if (b && caughtUp.at < begun) {
        metrics.lagSeconds = b.total.lagSeconds;
        metrics.pending = b.total.pending;
        metrics.lanes = b;
        lane.bursts = b.bursts.map((x) => x.sellerId);
      }
      failing = false;
    } catch (err) {
      if (!failing) opts.logger.warn({ err: (err as Error).message }, 'reading the change feed backlog failed; will retry');
      failing = true;
    }
    await sleep(every);
  }
}

async function recordBatch({ pool, logger }: LiveIndexerOptions, metrics: IndexerMetrics, batch: Batch, ms: number): Promise<void> {
  metrics.batches += 1;
  metrics.changes += batch.changes;
  metrics.docs += batch.docs;
  metrics.lastDocsPerSecond = Math.round((batch.docs * 1000) / Math.max(ms, 1));
  metrics.lastBatchAt = Date.now();
  metrics.batchWritten(batch, metrics.lastBatchAt);
  metrics.quarantined += batch.quarantined;
  if (batch.quarantined > 0 || batch.released > 0) metrics.quarantineSize = await quarantineSize(pool);
  if (batch.quarantined > 0)
    logger.warn(
      { quarantined: batch.quarantined, quarantineSize: metrics.quarantineSize },
      'documents refused by Elasticsearch quarantined (index_quarantine)',
    );
  const steps = Object.fromEntries(Object.entries(batch.times).map(([k, v]) => [k, Math.round(v)]));
  logger.info({ changes: batch.changes, docs: batch.docs, ms, steps, lagSeconds: metrics.lagSeconds, pending: metrics.pending }, 'batch indexed');
}

/**
 * Builds the index from PostgreSQL when the alias has none, or one of an older document model
 * (e.g. without product cards), whose answers this code's reads would get wrong. Readers keep the
 * old index until the swap. Under the build lock, so indexers starting together build it once.
 */
function ensureIndex({ pool, es, index, logger }: LiveIndexerOptions, metrics: IndexerMetrics, signal: AbortSignal): Promise<void> {
  return withBuildLock(pool, async () => {
    if ((await indicesBehind(es, index.alias)).length > 0) {
      const have = await indexedVersion(es, index.alias);
      if (have >= mappingVersion()) return;
      logger.warn({ alias: index.alias, have, want: mappingVersion() }, 'index predates this document model: rebuilding it');
    } else {
      logger.info({ alias: index.alias }, 'no index behind the alias: building it from PostgreSQL');
    }
    const r = await rebuild({ pool, es, index, logger, signal, onProgress: (p) => metrics.rebuildProgress(p) });
    logger.info(r, 'initial build done');
  });
}
