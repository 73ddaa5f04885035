// A token bucket per key, pure (the caller passes the clock), so it is unit-tested without timers.
// Each key holds up to `perMinute` tokens and regains them continuously at perMinute / 60 s; a
// request takes one. A steady client gets exactly `perMinute` requests a minute, and a client that
// was idle may burst up to `perMinute` at once. State lives in this process: with several API
// processes each enforces the limit on its own (documented; a shared store is future work).

export interface TakeResult {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** When refused: milliseconds until one token is back. 0 when allowed. */
  retryAfterMs: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    readonly perMinute: number,
    /** Above this many tracked keys, idle (full) buckets are forgotten, then the least recent ones. */
    private readonly maxKeys = 100_000,
  ) {
    if (!(perMinute > 0)) throw new Error('perMinute must be positive');
    this.perMs = perMinute / 60_000;
  }

  take(key: string, now: number): TakeResult {
    const prev = this.buckets.get(key);
    let tokens = this.perMinute;
    if (prev) {
      const elapsed = Math.max(0, now - prev.at);
      tokens = Math.min(this.perMinute, prev.tokens + elapsed * this.perMs);
      this.buckets.delete(key); // re-inserted below: Map order doubles as recency order
    }
    let result: TakeResult;
    if (tokens >= 1) {
      tokens -= 1;
      result = { allowed: true, remaining: Math.floor(tokens), retryAfterMs: 0 };
    } else {
      result = { allowed: false, remaining: 0, retryAfterMs: Math.ceil((1 - tokens) / this.perMs) };
    }
    this.buckets.set(key, { tokens, at: now });
    if (this.buckets.size > this.maxKeys) this.evict(now);
    return result;
  }

  /** Whether `take` would allow a request now, without taking a token. */
  peek(key: string, now: number): TakeResult {
    const prev = this.buckets.get(key);
    const tokens = prev ? Math.min(this.perMinute, prev.tokens + Math.max(0, now - prev.at) * this.perMs) : this.perMinute;
    return tokens >= 1
      ? { allowed: true, remaining: Math.floor(tokens), retryAfterMs: 0 }
      : { allowed: false, remaining: 0, retryAfterMs: Math.ceil((1 - tokens) / this.perMs) };
  }

  /** Number of keys currently tracked (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }

  private evict(now: number): void {
    // A bucket that has refilled completely is indistinguishable from a fresh one: drop those.
    for (const [key, b] of this.buckets) {
      if (b.tokens + (now - b.at) * this.perMs >= this.perMinute) this.buckets.delete(key);
    }
    // Still too many active keys: drop the least recently seen, down to 90% so the O(n) sweep
    // is amortized over many requests.
    const target = Math.floor(this.maxKeys * 0.9);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= target) break;
      this.buckets.delete(key);
    }
  }
}

/** Retry-After header value: whole seconds, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
