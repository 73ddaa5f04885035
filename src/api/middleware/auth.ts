import type { Request, RequestHandler } from 'express';
import type { AppDeps } from '../deps.js';
import { ApiError } from '../envelope.js';
import { activeKeysForSeller, type KeyOwner } from '../../db/api-keys.js';
import { bearerToken, hashApiKey, hashesEqual, parseApiKey } from '../../lib/api-key.js';
import { checkAddressBeforeAuth, recordAuthFailure } from './address-limit.js';

/** The authenticated seller of a request (set by `sellerAuth`, request-local). */
export type AuthenticatedSeller = KeyOwner;

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      seller?: AuthenticatedSeller;
    }
  }
}

// One message for missing, malformed, unknown and revoked keys: a caller cannot probe which.
const unauthorized = () => new ApiError(401, 'UNAUTHORIZED', 'Missing or invalid API key', undefined, { 'WWW-Authenticate': 'Bearer' });

/**
 * Bearer-key authentication for seller routes. Mount after the global version check (so an
 * unsupported version is refused before any key lookup) and before the seller rate limit.
 */
export function sellerAuth(deps: AppDeps): RequestHandler {
  return async (req, _res, next) => {
    // The address's request budget first: it bounds the key lookups one address can cost. Its
    // failure budget refuses only failures (address-limit.ts): a valid key is served.
    checkAddressBeforeAuth(deps, req);
    const failed = async () => {
      await recordAuthFailure(deps, req);
      return unauthorized();
    };
    const token = bearerToken(req.header('Authorization'));
    const parsed = token === null ? null : parseApiKey(token);
    if (!parsed) throw await failed();
    const hash = hashApiKey(parsed.key);
    const candidates = await activeKeysForSeller(deps.authPool ?? deps.pool, parsed.sellerCode);
    // Compare against every active key (no early exit) so timing does not depend on which matched.
    let match: AuthenticatedSeller | undefined;
    for (const c of candidates) {
      if (hashesEqual(c.keyHash, hash) && !match) {
        match = { sellerId: c.sellerId, sellerCode: c.sellerCode, inventorySource: c.inventorySource, keyId: c.keyId };
      }
    }
    if (!match) throw await failed();
    req.seller = match;
    next();
  };
}

/** The request's authenticated seller; a programming error when sellerAuth was not mounted. */
export function sellerOf(req: Request): AuthenticatedSeller {
  if (!req.seller) throw new Error('sellerAuth middleware is not mounted on this route');
  return req.seller;
}

/** Listing writes are for sellers whose declared inventory source is `platform` (contract, Authentication 5). */
export const requirePlatformSource: RequestHandler = (req, _res, next) => {
  if (sellerOf(req).inventorySource !== 'platform') {
    throw new ApiError(
      409,
      'SELLER_SOURCE_EXCLUSIVE',
      `This seller's inventory source is '${sellerOf(req).inventorySource}'; listing writes through this API need source 'platform'`,
    );
  }
  next();
};
