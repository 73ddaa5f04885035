import type { ClaimedEvent } from '../src/db/webhook-claim.js';
import type { AttemptOutcome, AttemptResult } from '../src/db/webhook-deliveries.js';
import type { EndpointState } from '../src/db/webhook-endpoints.js';
import type { Logger } from '../src/lib/logger.js';
import type { DispatcherConfig } from './config.js';
import { send, type SendResult } from './send.js';
import { envelope, sign, signingKey } from './sign.js';

/** A Retry-After longer than this is read as this (a bad header must not park an event for years). */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

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

/** An attempt's result, with what the breaker needs to know about its endpoint. */
export interface FinishedAttempt extends AttemptResult {
  sellerId: number;
  url: string;
  /** Its endpoint's state when claimed (`breaker_open`: the attempt was the breaker's probe). */
  endpointState: EndpointState;
}

/** One attempt of a claimed event: sign, send, decide what comes next, log one line. Never throws. */
export async function attemptDelivery(
  e: ClaimedEvent,
  config: Pick<DispatcherConfig, 'timeoutMs' | 'allowPrivateNetworks' | 'retryDelaysMs'>,
  logger: Logger,
): Promise<FinishedAttempt> {
  const startedAt = new Date();
  let r: SendResult;
  try {
    const body = envelope(e);
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
  const line = {
    eventId: e.eventId,
    sellerId: e.sellerId,
    type: e.type,
    attempt: e.attempt,
    endpoint: e.endpointState,
    status: s,
    error,
    ms: Math.round(r.durationMs),
    outcome,
    nextInMs: delayMs,
  };
  if (outcome === 'delivered') logger.info(line, 'webhook delivered');
  else logger.warn(line, outcome === 'failed' ? 'webhook failed; no more retries' : 'webhook attempt failed; will retry');
  return {
    eventId: e.eventId,
    attempt: e.attempt,
    startedAt,
    durationMs: r.durationMs,
    statusCode: s,
    error,
    outcome,
    delayMs,
    sellerId: e.sellerId,
    url: e.url,
    endpointState: e.endpointState,
  };
}
