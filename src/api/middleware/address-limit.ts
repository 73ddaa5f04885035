import type { Request } from 'express';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../envelope.js';
import { retryAfterSeconds, type TakeResult } from '../../lib/rate-limiter.js';

// Per-client-address limits of the seller routes that apply BEFORE authentication, so a client
// sending bad keys gets 429s instead of costing a key lookup each (450 bad keys got 450 x 401):
//   RATE_LIMIT_SELLER_ADDRESS_PER_MIN  every seller request of one address (taken before the lookup;
//                                      per process, no round trip);
//   RATE_LIMIT_AUTH_FAILURES_PER_MIN   failed authentications of one address, shared by every API
//                                      process: a failure beyond the budget is 429, on whichever
//                                      process; once a process has seen the budget spent, it refuses
//                                      the address before the lookup until the window ends.
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

/** Call before the key lookup: throws 429 when this address is over either budget (no round trip). */
export function checkAddressBeforeAuth(deps: AppDeps, req: Request): void {
  const { requests, failures } = limitersFor(deps);
  const key = clientAddress(req);
  const failed = failures.blockedHere(key);
  if (failed) refuse(deps, failed, 'failed authentications', 'auth_failures');
  const r = requests.take(key, Date.now());
  if (!r.allowed) refuse(deps, r, 'requests', 'seller_address');
}

/** Call when authentication failed: spends one of the address's shared failure budget; 429 beyond it. */
export async function recordAuthFailure(deps: AppDeps, req: Request): Promise<void> {
  const r = await limitersFor(deps).failures.take(clientAddress(req));
  if (!r.allowed) refuse(deps, r, 'failed authentications', 'auth_failures');
}
