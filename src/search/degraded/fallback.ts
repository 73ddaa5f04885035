import { LastGoodCache, type LastGoodCacheOptions } from './cache.js';
import { ConcurrencyLimiter, type LimiterOptions } from './limiter.js';
import type { DegradedMetrics } from './metrics.js';

// The PostgreSQL fallback of Degraded Mode, shared and bounded: identical concurrent misses wait
// for the same read, an answer is reused for a few seconds (the memo), and at most `limiter.max`
// reads run at once (more wait briefly, then fail with LimiterBusy), so a flood of cache misses
// cannot sink the database the rest of the service depends on.

/** A fallback answer: as read (data and its JSON text), or the memo's UTF-8 bytes. */
export type FallbackResult<T> = { data: T; json: string } | { bytes: Buffer };

export interface SharedFallback {
  /** The answer under `key`: the memo's, the one in flight, or `read()` run under the limiter. */
  read<T>(key: string, read: () => Promise<T>): Promise<FallbackResult<T>>;
  readonly limiter: ConcurrencyLimiter;
}

export function sharedFallback(options: { memo: LastGoodCacheOptions; limiter: LimiterOptions }, metrics: DegradedMetrics): SharedFallback {
  const memo = new LastGoodCache(options.memo);
  const inFlight = new Map<string, Promise<{ data: unknown; json: string }>>();
  const limiter = new ConcurrencyLimiter(options.limiter);
  return {
    limiter,
    read<T>(key: string, read: () => Promise<T>): Promise<FallbackResult<T>> {
      const kept = memo.getBytes(key);
      if (kept !== undefined) return Promise.resolve({ bytes: kept });
      let running = inFlight.get(key) as Promise<{ data: T; json: string }> | undefined;
      if (!running) {
        running = limiter
          .run(() => {
            metrics.fallbackQueries += 1;
            return read();
          })
          .then((data) => {
            const json = JSON.stringify(data);
            memo.setJson(key, json);
            return { data, json };
          })
          .finally(() => inFlight.delete(key));
        inFlight.set(key, running);
      }
      return running;
    },
  };
}
