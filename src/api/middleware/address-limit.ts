import type { Request } from 'express';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../envelope.js';
import { retryAfterSeconds, type TakeResult } from '../../lib/rate-limiter.js';

// Per-client-address limits of the seller routes that apply BEFORE authentication, so a client
// sending bad keys gets 429s instead of costing a key lookup each (450 bad keys got 450 x 401):
//   RATE_LIMIT_SELLER_ADDRESS_PER_MIN  every seller request of one address (taken before the lookup);
//   RATE_LIMIT_AUTH_FAILURES_PER_MIN   failed authentications of one address; once spent, the
//                                      address is refused before the lookup until tokens come back.
// The client address is Express's req.ip, so TRUST_PROXY decides whether X-Forwarded-For counts.

function limitersFor(deps: AppDeps) {
  return { requests: deps.services.rateLimits.sellerAddress, failures: deps.services.rateLimits.authFailures };
}

/** Client address as Express resolves it (per TRUST_PROXY). */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

function refuse(deps: AppDeps, r: TakeResult, what: string, limit: 'seller_address' | 'auth_failures'): never {
  deps.services.metrics.http.rateLimited(limit);
  const seconds = retryAfterSeconds(r.retryAfterMs);
  throw new ApiError(429, 'RATE_LIMITED', `Too many ${what} from this address; retry in ${seconds} s`, undefined, {
    'Retry-After': String(seconds),
  });
}

/** Call before the key lookup: throws 429 when this address is over either budget. */
export function checkAddressBeforeAuth(deps: AppDeps, req: Request): void {
  const { requests, failures } = limitersFor(deps);
  const key = clientAddress(req);
  const failed = failures.peek(key, Date.now());
  if (!failed.allowed) refuse(deps, failed, 'failed authentications', 'auth_failures');
  const r = requests.take(key, Date.now());
  if (!r.allowed) refuse(deps, r, 'requests', 'seller_address');
}

/** Call when authentication failed: spends one of the address's failure tokens. */
export function recordAuthFailure(deps: AppDeps, req: Request): void {
  limitersFor(deps).failures.take(clientAddress(req), Date.now());
}
