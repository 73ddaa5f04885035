import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

// Two kinds of request budget:
// - TokenBucketLimiter: per process, pure (the caller passes the clock), so it is unit-tested
//   without timers. Each key holds up to `perMinute` tokens and regains them continuously at
//   perMinute / 60 s; a request takes one. With several API processes each enforces it on its own:
//   the per-address limits, which must cost no round trip (README, "Scaling out").
// - SharedLimiter: one budget per key for every API process, kept in PostgreSQL by
//   rate-limiter-flexible (a fixed window of a minute per key, started by its first request).

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

/**
 * A per-minute budget per key shared by every API process on the same PostgreSQL (table
 * `rate_limits`). A key this process has seen spend its budget is refused from memory until its
 * window ends, so a blocked key costs no round trip. The store must never hold a request up or
 * take the API down with it: when it errors, does not answer within `timeoutMs` (a locked or slow
 * table), or already has `maxInFlight` calls waiting, this process's own budget answers instead
 * (`onFallback` counts it), and the queue for its connections stays bounded.
 */
export interface SharedLimiter {
  readonly perMinute: number;
  /** Takes one request from the key's budget (one round trip, unless the key is blocked here). */
  take(key: string): Promise<TakeResult>;
  /** Refused without a round trip: this process already saw the key spend its budget. */
  blockedHere(key: string): TakeResult | null;
}

/** Why a take was answered by the process's own budget instead of the shared store. */
export type StoreFallback = 'timeout' | 'error' | 'busy';

export interface SharedStore {
  /** The limiter's own small pool (its statements time out quickly), never the key lookups' or /readyz's. */
  pool: pg.Pool;
  /** Longest wait for the store's answer before this process's own budget answers. */
  timeoutMs: number;
  /** Store calls running or waiting for a connection at most; more are answered by the own budget at once. */
  maxInFlight: number;
  onFallback?: (reason: StoreFallback) => void;
}

/** `store` null: the budget of this process alone (tests and benches that compare the two). */
export function sharedLimiter(store: SharedStore | null, name: string, perMinute: number): SharedLimiter {
  if (!(perMinute > 0)) throw new Error('perMinute must be positive');
  const own = new RateLimiterMemory({ keyPrefix: name, points: perMinute, duration: 60 });
  const shared = store
    ? new RateLimiterPostgres({
        storeClient: store.pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true, // the migration made it
        clearExpiredByTimeout: false, // the API's own sweep (src/db/rate-limits.ts) keeps the table bounded
        keyPrefix: name,
        points: perMinute,
        duration: 60,
        inMemoryBlockOnConsumed: perMinute,
      })
    : null;
  let inFlight = 0;
  // The store's answer, or null when the own budget must answer (a late store answer is dropped:
  // its point was taken in the shared budget all the same).
  const fromStore = async (key: string): Promise<RateLimiterRes | null> => {
    if (!shared || !store) return null;
    if (inFlight >= store.maxInFlight) {
      store.onFallback?.('busy');
      return null;
    }
    inFlight++;
    let timer: NodeJS.Timeout | undefined;
    const consuming = shared.consume(key).finally(() => inFlight--);
    try {
      return await Promise.race([
        consuming.then(
          (r) => r,
          (err: unknown) => {
            if (err instanceof RateLimiterRes) throw err; // over the shared budget: a refusal, not a failure
            store.onFallback?.('error');
            return null;
          },
        ),
        new Promise<null>((resolve) => {
          timer = setTimeout(() => {
            store.onFallback?.('timeout');
            resolve(null);
          }, store.timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      consuming.catch(() => undefined);
    }
  };
  const refused = (msBeforeNext: number): TakeResult => ({ allowed: false, remaining: 0, retryAfterMs: Math.max(1, msBeforeNext) });
  // Keys this process saw spend their budget, until their window ends (the store's in-memory block
  // does the same for take(); this answers the question without taking a point).
  const spent = new Map<string, number>();
  const spentUntil = (key: string, ms: number) => {
    const now = Date.now();
    if (spent.size > 10_000) for (const [k, until] of spent) if (until <= now) spent.delete(k);
    spent.set(key, now + ms);
  };
  return {
    perMinute,
    take: async (key) => {
      try {
        const r = (await fromStore(key)) ?? (await own.consume(key));
        if (r.remainingPoints === 0) spentUntil(key, r.msBeforeNext);
        return { allowed: true, remaining: r.remainingPoints, retryAfterMs: 0 };
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        spentUntil(key, err.msBeforeNext);
        return refused(err.msBeforeNext);
      }
    },
    blockedHere: (key) => {
      const until = spent.get(key);
      if (until === undefined) return null;
      if (until <= Date.now()) {
        spent.delete(key);
        return null;
      }
      return refused(until - Date.now());
    },
  };
}
