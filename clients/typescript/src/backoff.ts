// When to try again: exponential backoff with full jitter, never sooner than the server's
// Retry-After. Pure, so the rules are tested without waiting.

export interface RetryPolicy {
  /** Retries after the first attempt (0 disables retrying). */
  maxRetries: number;
  /** The first retry's delay ceiling; each retry doubles it. */
  baseDelayMs: number;
  /** No computed delay exceeds this. */
  maxDelayMs: number;
  /** A Retry-After asking for longer than this is not waited for: the error is thrown. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 200, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };

/**
 * Milliseconds to wait before retry number `retry` (1-based): a uniformly random share of
 * base * 2^(retry-1) capped at maxDelayMs ("full jitter", so clients refused together do not
 * return together), and at least the server's Retry-After. Null when the Retry-After asks too much.
 */
export function retryDelay(retry: number, retryAfterMs: number | null, policy: RetryPolicy, random: () => number = Math.random): number | null {
  if (retryAfterMs !== null && retryAfterMs > policy.maxRetryAfterMs) return null;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  const jittered = Math.floor(random() * ceiling);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** A Retry-After header (delay-seconds or an HTTP date) in milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
