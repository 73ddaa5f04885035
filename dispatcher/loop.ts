import type { Pool } from '../src/db/pool.js';
import type { Logger } from '../src/lib/logger.js';
import { listen } from '../src/db/listen.js';
import {
  claimDue,
  nextDueAt,
  parkEventsWithoutEndpoint,
  recordAttempts,
  type AttemptOutcome,
  type AttemptResult,
  type ClaimedEvent,
} from '../src/db/webhook-deliveries.js';
import { createWake } from '../src/lib/wake.js';
import { emptyMetrics, observeLatency, type DispatcherMetrics } from './metrics.js';
import { send, type SendResult } from './send.js';
import { envelope, sign, signingKey } from './sign.js';

export interface DispatcherConfig {
  timeoutMs: number;
  /** The delay before each retry; after the last one the event is failed. */
  retryDelaysMs: readonly number[];
  allowPrivateNetworks: boolean;
  /** Attempts in flight in this process, in all. */
  concurrency: number;
  /** Attempts in flight in this process, per endpoint (a seller has one). */
  perEndpoint: number;
  /** Safety-net poll; NOTIFY is only a hint. */
  pollMs: number;
}

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

/**
 * A claim's lease outlives its attempt (bounded by the timeout) by this much, which covers
 * recording the outcome; after it another dispatcher may take the event (at-least-once).
 */
export const LEASE_MARGIN_MS = 5000;
/** A Retry-After longer than this is read as this (a bad header must not park an event for years). */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;
const PARK_EVERY_MS = 10_000;
const RECORD_BATCH = 1000;
/**
 * Under load, a claim waits this long after a wake-up to take several freed slots at once: each
 * claim walks every seller's due index entries, so fewer, larger claims cost PostgreSQL less.
 */
const GATHER_MS = 5;
const FULL_WALK_EVERY_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What an attempt's answer means for the event (DECISIONS.md "Events"). */
export function decide(
  r: Pick<SendResult, 'statusCode' | 'retryAfterSeconds'>,
  attemptInRound: number,
  retryDelaysMs: readonly number[],
): { outcome: AttemptOutcome; delayMs: number | null } {
  const s = r.statusCode;
  if (s !== null && s >= 200 && s < 300) return { outcome: 'delivered', delayMs: null };
  if (s === 410) return { outcome: 'failed', delayMs: null };
  if (attemptInRound > retryDelaysMs.length) return { outcome: 'failed', delayMs: null };
  let delayMs = retryDelaysMs[attemptInRound - 1]!;
  if ((s === 429 || s === 503) && r.retryAfterSeconds !== null) {
    delayMs = Math.max(delayMs, Math.min(r.retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS));
  }
  return { outcome: 'retry', delayMs };
}

export async function startDispatcher(opts: DispatcherOptions): Promise<Dispatcher> {
  const { pool, logger, config } = opts;
  const leaseMs = config.timeoutMs + LEASE_MARGIN_MS;
  const metrics = emptyMetrics();
  const wake = createWake();
  const perSeller = new Map<number, number>();
  const inFlight = new Set<Promise<void>>();
  const toRecord: AttemptResult[] = [];
  let recording: Promise<void> | null = null;
  let stopping = false;

  // Per seller, where this dispatcher's last claim ended: the next claim starts its walk there.
  // Behind it may lie events committed late (inserted earlier, committed after a later one was
  // claimed) and events whose lease expired: a NOTIFY (sent at commit) and the passing of
  // FULL_WALK_EVERY_MS make the next claim walk everything.
  const walkFrom = new Map<number, Date>();
  let fullWalkDue = true;
  let lastFullWalk = 0;
  const subscriber = listen(opts.databaseUrl, 'webhook_events', logger, () => {
    fullWalkDue = true;
    wake.wake();
  });

  async function recordLoop(): Promise<void> {
    let backoff = 200;
    while (toRecord.length > 0) {
      const batch = toRecord.splice(0, RECORD_BATCH);
      try {
        await recordAttempts(pool, batch);
        backoff = 200;
      } catch (err) {
        metrics.errors += 1;
        logger.warn({ err: (err as Error).message, attempts: batch.length, retryInMs: backoff }, 'recording attempts failed; will retry');
        toRecord.unshift(...batch);
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
    recording = null;
  }

  async function attempt(e: ClaimedEvent): Promise<void> {
    const startedAt = new Date();
    const body = envelope(e);
    let r: SendResult;
    try {
      const timestamp = Math.floor(Date.now() / 1000);
      const headers = {
        'webhook-id': e.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': sign(signingKey(e.secret), e.eventId, timestamp, body),
      };
      r = await send(e.url, headers, body, { timeoutMs: config.timeoutMs, allowPrivateNetworks: config.allowPrivateNetworks });
    } catch (err) {
      r = { statusCode: null, error: (err as Error).message, retryAfterSeconds: null, bodySnippet: '', durationMs: Date.now() - startedAt.getTime() };
    }
    const { outcome, delayMs } = decide(r, e.attempt - e.roundStart, config.retryDelaysMs);
    const s = r.statusCode;
    const error =
      r.error ?? (s !== null && (s < 200 || s >= 300) ? (s >= 300 && s < 400 ? 'redirect not followed' : r.bodySnippet.slice(0, 200) || null) : null);
    metrics.deliveries[outcome] += 1;
    observeLatency(metrics, r.durationMs / 1000);
    const line = {
      eventId: e.eventId,
      sellerId: e.sellerId,
      type: e.type,
      attempt: e.attempt,
      status: s,
      error,
      ms: Math.round(r.durationMs),
      outcome,
      nextInMs: delayMs,
    };
    if (outcome === 'delivered') logger.info(line, 'webhook delivered');
    else logger.warn(line, outcome === 'failed' ? 'webhook failed; no more retries' : 'webhook attempt failed; will retry');
    toRecord.push({ eventId: e.eventId, attempt: e.attempt, startedAt, durationMs: r.durationMs, statusCode: s, error, outcome, delayMs });
    recording ??= recordLoop();
  }

  function start(e: ClaimedEvent): void {
    perSeller.set(e.sellerId, (perSeller.get(e.sellerId) ?? 0) + 1);
    metrics.inFlight += 1;
    const p: Promise<void> = attempt(e)
      .catch((err: Error) => logger.error({ err: err.message, eventId: e.eventId }, 'attempt crashed'))
      .finally(() => {
        const n = perSeller.get(e.sellerId)! - 1;
        if (n === 0) perSeller.delete(e.sellerId);
        else perSeller.set(e.sellerId, n);
        metrics.inFlight -= 1;
        inFlight.delete(p);
        wake.wake(); // a slot is free
      });
    inFlight.add(p);
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
        const free = config.concurrency - metrics.inFlight;
        if (free > 0) {
          const full = fullWalkDue || Date.now() - lastFullWalk >= FULL_WALK_EVERY_MS;
          if (full) {
            fullWalkDue = false;
            lastFullWalk = Date.now();
          }
          const claimed = await claimDue(pool, {
            limit: free,
            perEndpoint: config.perEndpoint,
            busy: perSeller,
            leaseMs,
            ...(full ? {} : { from: walkFrom }),
          });
          for (const e of claimed) {
            const at = walkFrom.get(e.sellerId);
            if (!at || e.nextAttemptAt > at) walkFrom.set(e.sellerId, e.nextAttemptAt);
          }
          // Claimed while stop() began: sent anyway (each bounded by the timeout) rather than
          // left leased until the lease passes.
          if (claimed.length > 0) {
            metrics.claims += 1;
            metrics.claimed += claimed.length;
          }
          claimed.forEach(start);
          backoff = 200;
          // A full claim may have left more behind. A partial one took everything claimable:
          // what comes next is woken by NOTIFY or by a finished attempt freeing its slot.
          if (claimed.length === free) continue;
          if (claimed.length === 0) {
            const next = await nextDueAt(pool);
            const untilNext = next ? Math.max(next.getTime() - Date.now(), 1) : config.pollMs;
            await wake.wait(Math.min(config.pollMs, untilNext));
          } else {
            await wake.wait(config.pollMs);
          }
          // Under load, let a few more attempts finish so the next claim takes several rows at once.
          if (metrics.inFlight > 0) await sleep(GATHER_MS);
        } else {
          await wake.wait(config.pollMs);
        }
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
      while (recording) await recording;
      await subscriber.close().catch(() => undefined);
    },
  };
}
