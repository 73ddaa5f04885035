import type { Request } from 'express';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../envelope.js';
import { retryAfterSeconds, type TakeResult } from '../../lib/rate-limiter.js';

// Per-client-address limits of the seller routes:
//   RATE_LIMIT_SELLER_ADDRESS_PER_MIN  every seller request of one address, taken before the key
//                                      lookup (per process, no round trip): what bounds lookups;
//   RATE_LIMIT_AUTH_FAILURES_PER_MIN   failed authentications of one address, shared by every API
//                                      process: a failure beyond the budget is 429 instead of 401, on
//                                      whichever process (once a process has seen the budget spent,
//                                      without a round trip).
// The failure budget refuses failures only: a valid key from an address whose budget others spent
// is still looked up and served, since platforms serve many sellers from one address (and without
// TRUST_PROXY everyone behind the load balancer is one address). Guessing stays hopeless: a key's
// secret has at least 128 bits, and the address's request budget bounds the guesses anyway.
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

/** Call before the key lookup: throws 429 when this address is over its request budget (no round trip). */
export function checkAddressBeforeAuth(deps: AppDeps, req: Request): void {
  const r = limitersFor(deps).requests.take(clientAddress(req), Date.now());
  if (!r.allowed) refuse(deps, r, 'requests', 'seller_address');
}

/**
 * Call when authentication failed: spends one of the address's shared failure budget; 429 beyond
 * it (without a round trip once this process has seen the budget spent).
 */
export async function recordAuthFailure(deps: AppDeps, req: Request): Promise<void> {
  const { failures } = limitersFor(deps);
  const key = clientAddress(req);
  const r = failures.blockedHere(key) ?? (await failures.take(key));
  if (!r.allowed) refuse(deps, r, 'failed authentications', 'auth_failures');
}
