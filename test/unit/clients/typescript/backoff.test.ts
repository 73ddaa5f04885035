import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY, parseRetryAfter, retryDelay } from '../../../../clients/typescript/src/backoff.js';

describe('retry delays', () => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };

  it('doubles the ceiling with each retry and caps it, a random share of it (full jitter)', () => {
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(n, null, policy, () => 0.999999))).toEqual([99, 199, 399, 799, 999]);
    expect(retryDelay(3, null, policy, () => 0.5)).toBe(200);
    expect(retryDelay(3, null, policy, () => 0)).toBe(0);
  });

  it("waits at least the server's Retry-After", () => {
    expect(retryDelay(1, 2000, policy, () => 0.5)).toBe(2000);
    expect(retryDelay(4, 10, policy, () => 0.5)).toBe(400);
  });

  it('gives up (null) when the Retry-After asks for more than the policy allows', () => {
    expect(retryDelay(1, 61_000, DEFAULT_RETRY)).toBeNull();
    expect(retryDelay(1, 60_000, DEFAULT_RETRY, () => 0)).toBe(60_000);
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-27T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('1', now)).toBe(1000);
    expect(parseRetryAfter(' 30 ', now)).toBe(30_000);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date as the time until it, never negative', () => {
    expect(parseRetryAfter('Fri, 27 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 11:59:00 GMT', now)).toBe(0);
  });

  it('is null when absent or unreadable', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-1', now)).toBeNull();
    expect(parseRetryAfter('1.5', now)).toBeNull();
  });
});
