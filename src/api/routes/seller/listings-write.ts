import type { Request, RequestHandler } from 'express';
import type { RouteModule } from '../../app.js';
import { ApiError, ok } from '../../envelope.js';
import { parseOr400 } from '../../validate.js';
import { requirePlatformSource, sellerAuth, sellerOf } from '../../middleware/auth.js';
import { sellerRateLimit } from '../../middleware/rate-limit.js';
import { sellerWriteCap } from '../../middleware/write-cap.js';
import { bulkBodySchema, bulkItemSchema, listingsPostBodySchema, listingUpsertItemSchema, MAX_WRITE_ITEMS } from '../../../contract/seller.js';
import { applyListingWrites, field, purgeListings, toPlanItem } from '../../../listings/write.js';

// POST /listings, POST /listings/bulk, POST /listings/purge: validation at the edge, then the
// write side in src/listings/write.ts.

function tooLarge(n: number): ApiError {
  return new ApiError(413, 'BATCH_TOO_LARGE', `${n} items in one listing write; at most ${MAX_WRITE_ITEMS} are allowed`, {
    maxItems: MAX_WRITE_ITEMS,
    items: n,
  });
}

/** The JSON body, or 400 when none was sent (body-parser turns an empty body into `{}`). */
function requiredBody(req: Request): unknown {
  const sent = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!sent || req.body === undefined) {
    throw new ApiError(400, 'INVALID_REQUEST', 'Request body is required', [{ field: '(root)', message: 'Request body is required' }]);
  }
  return req.body;
}

export const sellerListingWriteRoutes: RouteModule = (app, deps) => {
  // Version check is global (earlier); then key, per-key rate limit, then the source rule (409).
  // The per-seller write cap comes last so refused requests never count against it.
  const guard: RequestHandler[] = [sellerAuth(deps), sellerRateLimit(deps), requirePlatformSource, sellerWriteCap(deps)];

  app.post('/listings', ...guard, async (req, res) => {
    const body = parseOr400(listingsPostBodySchema, requiredBody(req));
    const raw = Array.isArray(body) ? body : [body];
    if (raw.length > MAX_WRITE_ITEMS) throw tooLarge(raw.length);
    const items = raw.map((r) => toPlanItem(r, listingUpsertItemSchema));
    res.json(ok({ results: await applyListingWrites(deps.pool, sellerOf(req).sellerId, items) }));
  });

  app.post('/listings/bulk', ...guard, async (req, res) => {
    // Count first: an oversized batch is 413 even if its envelope has other faults.
    const raw = requiredBody(req);
    const rawItems = field(raw, 'items');
    if (Array.isArray(rawItems) && rawItems.length > MAX_WRITE_ITEMS) throw tooLarge(rawItems.length);
    const body = parseOr400(bulkBodySchema, raw);
    const items = body.items.map((r) => toPlanItem(r, bulkItemSchema));
    res.json(ok({ results: await applyListingWrites(deps.pool, sellerOf(req).sellerId, items) }));
  });

  app.post('/listings/purge', ...guard, async (req, res) => {
    const sellerId = sellerOf(req).sellerId;
    const purged = await purgeListings(deps.pool, sellerId);
    res.json(ok({ purged }));
  });
};
