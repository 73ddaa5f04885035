import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import { listen } from '../src/db/listen.js';
import type { IndexNames } from '../src/es/index-names.js';
import type { Logger } from '../src/lib/logger.js';
import { feedLag, pruneFeed } from '../src/db/change-feed.js';
import { loadCheckpoint, START, type Position } from '../src/db/feed-guard.js';
import { catchUp } from './catch-up.js';
import { withBatchLock } from './batch-lock.js';
import { indexedVersion, indicesBehind, mappingVersion } from './index-admin.js';
import { rebuild } from './rebuild.js';
import { emptyMetrics, type IndexerMetrics } from './metrics.js';
import { createWake } from '../src/lib/wake.js';

export const LIVE_CONSUMER = 'live';

export interface LiveIndexerOptions {
  pool: Pool;
  es: Client;
  index: IndexNames;
  logger: Logger;
  databaseUrl: string;
  /** Safety-net poll; NOTIFY is only a hint (it is lost while nobody listens). */
  pollMs?: number;
}

export interface LiveIndexer {
  metrics: IndexerMetrics;
  /** Resolves when the checkpoint has passed every change committed before the call. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The long-lived indexer: bootstraps the index when the alias is missing, then follows the change
 * feed. NOTIFY (pg-listen) wakes it at once; a poll covers lost notifications, reconnects and
 * changes held back behind an older open transaction. Errors (Elasticsearch or PostgreSQL down)
 * back off and retry the same batch; the checkpoint only moves after a successful write.
 */
export async function startLiveIndexer(opts: LiveIndexerOptions): Promise<LiveIndexer> {
  const { pool, es, index, logger } = opts;
  const pollMs = opts.pollMs ?? 500;
  const metrics = emptyMetrics();
  const wake = createWake();
  let stopped = false;
  let position: Position | null = null;
  let idleWaiters: (() => void)[] = [];

  const subscriber = listen(opts.databaseUrl, 'change_feed', logger, () => wake.wake());

  async function ensureIndex(): Promise<void> {
    if ((await indicesBehind(es, index.alias)).length > 0) {
      const have = await indexedVersion(es, index.alias);
      if (have >= mappingVersion()) return;
      // An index of an older document model (e.g. without product cards) would give wrong
      // answers to this code's reads: rebuild it; readers keep the old one until the swap.
      logger.warn({ alias: index.alias, have, want: mappingVersion() }, 'index predates this document model: rebuilding it');
    } else {
      logger.info({ alias: index.alias }, 'no index behind the alias: building it from PostgreSQL');
    }
    const r = await rebuild({ pool, es, index, logger });
    logger.info(r, 'initial build done');
  }

  async function loop(): Promise<void> {
    let backoff = 200;
    let sincePrune = 0;
    while (!stopped) {
      try {
        if (position === null) {
          await ensureIndex();
          position = (await loadCheckpoint(pool, LIVE_CONSUMER)) ?? START;
          logger.info({ position }, 'indexer following the change feed');
        }
        const t0 = Date.now();
        const from: Position = position;
        const r = await withBatchLock(pool, () => catchUp(pool, es, index.alias, from, LIVE_CONSUMER));
        backoff = 200;
        if (r.changes > 0) {
          position = r.position;
          const ms = Date.now() - t0;
          metrics.batches += 1;
          metrics.changes += r.changes;
          metrics.docs += r.docs;
          metrics.lastDocsPerSecond = Math.round((r.docs * 1000) / Math.max(ms, 1));
          metrics.lastBatchAt = Date.now();
          Object.assign(metrics, await feedLag(pool, position));
          logger.info({ changes: r.changes, docs: r.docs, ms, lagSeconds: metrics.lagSeconds, pending: metrics.pending }, 'batch indexed');
          if ((sincePrune += r.changes) > 50_000) {
            sincePrune = 0;
            const pruned = await pruneFeed(pool);
            logger.debug({ pruned }, 'change feed pruned');
          }
          continue;
        }
        metrics.lagSeconds = 0;
        metrics.pending = 0;
        const waiters = idleWaiters;
        idleWaiters = [];
        waiters.forEach((w) => w());
        await wake.wait(pollMs);
      } catch (err) {
        metrics.errors += 1;
        logger.warn({ err: (err as Error).message, retryInMs: backoff }, 'indexing batch failed; will retry');
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  const running = loop();

  return {
    metrics,
    idle: () =>
      new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        wake.wake();
      }),
    stop: async () => {
      stopped = true;
      wake.wake();
      await running;
      await subscriber.close().catch(() => undefined);
    },
  };
}
