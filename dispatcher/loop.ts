import type { Pool } from '../src/db/pool.js';
import type { Logger } from '../src/lib/logger.js';
import { listen } from '../src/db/listen.js';
import type { ClaimedEvent } from '../src/db/webhook-claim.js';
import { nextDueAt, parkEventsWithoutEndpoint } from '../src/db/webhook-deliveries.js';
import { createWake } from '../src/lib/wake.js';
import { attemptDelivery } from './attempt.js';
import { createClaimer } from './claimer.js';
import { changesHealth } from './endpoint-health.js';
import type { DispatcherConfig } from './config.js';
import { emptyMetrics, observeLatency, type DispatcherMetrics } from './metrics.js';
import { createRecorder } from './recorder.js';
import { startRetention } from './retention.js';
import { createSlots } from './slots.js';

export interface DispatcherOptions {
  pool: Pool;
  databaseUrl: string;
  logger: Logger;
  config: DispatcherConfig;
}

export interface Dispatcher {
  metrics: DispatcherMetrics;
  /** Stops claiming, lets in-flight attempts finish or time out, records them. */
  stop(): Promise<void>;
}

const PARK_EVERY_MS = 10_000;
/**
 * Under load, a claim waits this long after a wake-up to take several freed slots at once: each
 * claim walks every seller's due index entries, so fewer, larger claims cost PostgreSQL less.
 */
const GATHER_MS = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The dispatcher: claim what the free slots allow (dispatcher/claimer.ts), attempt each claimed
 * event (dispatcher/attempt.ts), record the outcomes in batches (dispatcher/recorder.ts, which
 * also feeds the breaker), and sleep until a NOTIFY, a freed slot or the next due attempt.
 */
export async function startDispatcher(opts: DispatcherOptions): Promise<Dispatcher> {
  const { pool, logger, config } = opts;
  const slots = createSlots(config);
  const metrics = emptyMetrics(slots.byState);
  const wake = createWake();
  const inFlight = new Set<Promise<void>>();
  const claimer = createClaimer(pool, config);
  const recorder = createRecorder({ pool, logger, slowMs: config.slowMs, onError: () => (metrics.errors += 1) });
  const retention = startRetention({
    pool,
    logger,
    retentionDays: config.retentionDays,
    onPruned: (n) => (metrics.pruned += n),
    onError: () => (metrics.errors += 1),
  });
  let stopping = false;

  const subscriber = listen(opts.databaseUrl, 'webhook_events', logger, () => {
    claimer.walkEverything();
    wake.wake();
  });

  function start(e: ClaimedEvent): void {
    slots.take(e);
    metrics.inFlight += 1;
    const p: Promise<void> = attemptDelivery(e, config, logger)
      .then((done) => {
        metrics.deliveries[done.outcome] += 1;
        observeLatency(metrics, done.durationMs / 1000);
        const recorded = recorder.add(done);
        // An attempt that changes its endpoint's standing keeps its slot until that is recorded:
        // claimed again before, an untried endpoint that just hung would still read as untried.
        if (changesHealth(done, config.slowMs)) return recorded;
      })
      .catch((err: Error) => logger.error({ err: err.message, eventId: e.eventId }, 'attempt crashed'))
      .finally(() => {
        slots.release(e);
        metrics.inFlight -= 1;
        inFlight.delete(p);
        wake.wake(); // a slot is free
      });
    inFlight.add(p);
  }

  /** One pass: claim and start what the slots allow, then wait for a reason to claim again. */
  async function claimAndWait(): Promise<void> {
    const free = slots.free();
    if (free <= 0) return wake.wait(config.pollMs);
    const claimed = await claimer.claim(slots);
    if (claimed.length > 0) {
      metrics.claims += 1;
      metrics.claimed += claimed.length;
    }
    // Claimed while stop() began: sent anyway (each bounded by the timeout) rather than left
    // leased until the lease passes.
    claimed.forEach(start);
    // A full claim may have left more behind. A partial one took everything claimable: what
    // comes next is woken by NOTIFY, by a finished attempt freeing its slot, or is due later.
    if (claimed.length === free) return;
    if (claimed.length === 0) {
      const next = await nextDueAt(pool);
      const untilNext = next ? Math.max(next.getTime() - Date.now(), 1) : config.pollMs;
      await wake.wait(Math.min(config.pollMs, untilNext));
    } else {
      await wake.wait(config.pollMs);
    }
    // Under load, let a few more attempts finish so the next claim takes several rows at once.
    if (slots.inFlight() > 0) await sleep(GATHER_MS);
  }

  async function loop(): Promise<void> {
    let backoff = 200;
    let lastPark = 0;
    while (!stopping) {
      try {
        if (Date.now() - lastPark > PARK_EVERY_MS) {
          lastPark = Date.now();
          const parked = await parkEventsWithoutEndpoint(pool);
          if (parked > 0) logger.info({ parked }, 'pending events of sellers without a webhook set to no_endpoint');
        }
        await claimAndWait();
        backoff = 200;
      } catch (err) {
        metrics.errors += 1;
        logger.warn({ err: (err as Error).message, retryInMs: backoff }, 'claiming webhook events failed; will retry');
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
  }

  const running = loop();
  logger.info({ ...config, retryDelaysMs: config.retryDelaysMs.join(',') }, 'webhook dispatcher started');

  return {
    metrics,
    stop: async () => {
      stopping = true;
      wake.wake();
      await running;
      await Promise.all([...inFlight]);
      await recorder.drained();
      await retention.stop();
      await subscriber.close().catch(() => undefined);
    },
  };
}
