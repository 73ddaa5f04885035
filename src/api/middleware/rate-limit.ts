import type { RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../envelope.js';
import type { HttpMetrics, RateLimit } from '../../lib/http-metrics.js';
import { retryAfterSeconds, type TakeResult, type TokenBucketLimiter } from '../../lib/rate-limiter.js';
import { sellerOf } from './auth.js';
import { clientAddress } from './address-limit.js';

// Limits are configuration (RATE_LIMIT_SELLER_PER_MIN, RATE_LIMIT_PUBLIC_PER_MIN): per API key on
// seller routes, shared by every API process (one round trip to PostgreSQL per request, none once
// the key is blocked here); per client address on public routes, per process (no round trip on a
// buyer read). The limiters are services (createServices), so every route module that mounts
// `publicRateLimit(deps)` shares the same per-address budget.

function enforce(perMinute: number, r: TakeResult, res: Response, metrics: HttpMetrics, limit: RateLimit): void {
  res.setHeader('X-RateLimit-Limit', String(perMinute));
  res.setHeader('X-RateLimit-Remaining', String(r.remaining));
  if (!r.allowed) {
    metrics.rateLimited(limit);
    const seconds = retryAfterSeconds(r.retryAfterMs);
    throw new ApiError(429, 'RATE_LIMITED', `Rate limit of ${perMinute} requests per minute exceeded; retry in ${seconds} s`, undefined, {
      'Retry-After': String(seconds),
    });
  }
}

/** Per-key limit for seller routes; mount after `sellerAuth`. */
export function sellerRateLimit(deps: AppDeps): RequestHandler {
  const limiter = deps.services.rateLimits.seller;
  return async (req, res, next) => {
    enforce(limiter.perMinute, await limiter.take(`key:${sellerOf(req).keyId}`), res, deps.services.metrics.http, 'seller_key');
    next();
  };
}

/** Per-client-address limit for the public (buyer) routes. */
export function publicRateLimit(deps: AppDeps): RequestHandler {
  const limiter: TokenBucketLimiter = deps.services.rateLimits.public;
  return (req, res, next) => {
    enforce(limiter.perMinute, limiter.take(`ip:${clientAddress(req)}`, Date.now()), res, deps.services.metrics.http, 'public');
    next();
  };
}
