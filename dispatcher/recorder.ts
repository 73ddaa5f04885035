import type { Pool } from '../src/db/pool.js';
import { recordAttempts } from '../src/db/webhook-deliveries.js';
import type { Logger } from '../src/lib/logger.js';
import type { FinishedAttempt } from './attempt.js';
import { endpointReports } from './endpoint-health.js';

const RECORD_BATCH = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Recorder {
  /** Queues the attempt; resolves once it is recorded. */
  add(a: FinishedAttempt): Promise<void>;
  /** Resolves once everything added so far is recorded. */
  drained(): Promise<void>;
}

/**
 * Records finished attempts in batches (one statement per batch: attempt rows, event updates and
 * endpoint health), in the order they finished. A failed record (PostgreSQL unavailable) is
 * retried with backoff; the events stay leased meanwhile.
 */
export function createRecorder(o: { pool: Pool; logger: Logger; slowMs: number; onError: () => void }): Recorder {
  const queue: { attempt: FinishedAttempt; recorded: () => void }[] = [];
  let running: Promise<void> | null = null;

  async function drain(): Promise<void> {
    let backoff = 200;
    while (queue.length > 0) {
      const batch = queue.splice(0, RECORD_BATCH);
      const attempts = batch.map((q) => q.attempt);
      try {
        await recordAttempts(o.pool, attempts, endpointReports(attempts, o.slowMs));
        backoff = 200;
        for (const q of batch) q.recorded();
      } catch (err) {
        o.onError();
        o.logger.warn({ err: (err as Error).message, attempts: batch.length, retryInMs: backoff }, 'recording attempts failed; will retry');
        queue.unshift(...batch);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
    running = null;
  }

  return {
    add(a) {
      return new Promise<void>((recorded) => {
        queue.push({ attempt: a, recorded });
        running ??= drain();
      });
    },
    async drained() {
      while (running) await running;
    },
  };
}
