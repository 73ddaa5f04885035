import type { Pool } from '../src/db/pool.js';
import { pruneFinishedEvents } from '../src/db/webhook-deliveries.js';
import type { Logger } from '../src/lib/logger.js';

// Keeps webhook_events and webhook_attempts bounded: finished events (delivered, failed,
// no_endpoint) go WEBHOOK_RETENTION_DAYS after they finished, with their attempts. Small batches,
// each its own short statement, with a pause between them, so the queue's claims and records
// never wait behind a long delete; several dispatchers may prune at once (they skip each other's rows).

const PRUNE_EVERY_MS = 10 * 60 * 1000;
const BATCH = 500;
const PAUSE_MS = 20;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Retention {
  /** Finishes the batch in progress, then stops. */
  stop(): Promise<void>;
}

/** Prunes at start and every PRUNE_EVERY_MS; `onPruned` counts deleted events. */
export function startRetention(o: { pool: Pool; logger: Logger; retentionDays: number; onPruned: (n: number) => void; onError: () => void }): Retention {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;

  async function pass(): Promise<void> {
    let total = 0;
    try {
      for (;;) {
        const n = await pruneFinishedEvents(o.pool, o.retentionDays, BATCH);
        total += n;
        o.onPruned(n);
        if (n < BATCH || stopped) break;
        await sleep(PAUSE_MS);
      }
      if (total > 0) o.logger.info({ pruned: total, retentionDays: o.retentionDays }, 'finished webhook events past retention deleted');
    } catch (err) {
      o.onError();
      o.logger.warn({ err: (err as Error).message, pruned: total }, 'pruning finished webhook events failed; next pass will retry');
    }
  }

  function schedule(delayMs: number): void {
    timer = setTimeout(() => {
      running = pass().finally(() => {
        running = null;
        if (!stopped) schedule(PRUNE_EVERY_MS);
      });
    }, delayMs);
  }
  schedule(0);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
