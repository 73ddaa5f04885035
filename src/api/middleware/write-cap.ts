import type { RequestHandler } from 'express';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../envelope.js';
import { sellerOf } from './auth.js';

// At most SELLER_MAX_CONCURRENT_WRITES listing writes of one seller in flight. A seller's writes
// serialize on its advisory lock anyway, so more in flight only hold pooled connections while
// they wait, and other sellers' requests wait for a connection (BENCHMARKS.md, "Measurements
// behind code choices"): beyond the cap the request is refused at once with 429 and a Retry-After.

/** Mount after sellerAuth on write routes. */
export function sellerWriteCap(deps: AppDeps): RequestHandler {
  const active = deps.services.writesInFlight;
  const cap = deps.env.SELLER_MAX_CONCURRENT_WRITES;
  return (req, res, next) => {
    const sellerId = sellerOf(req).sellerId;
    const n = active.get(sellerId) ?? 0;
    if (n >= cap) {
      deps.services.metrics.http.rateLimited('seller_writes');
      throw new ApiError(429, 'RATE_LIMITED', `At most ${cap} listing writes of one seller may run at once; retry when one has finished`, undefined, {
        'Retry-After': '1',
      });
    }
    active.set(sellerId, n + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (active.get(sellerId) ?? 1) - 1;
      if (left <= 0) active.delete(sellerId);
      else active.set(sellerId, left);
    };
    res.on('finish', release);
    res.on('close', release);
    next();
  };
}
