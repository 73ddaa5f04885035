import type { Request, RequestHandler } from 'express';
import type { z } from 'zod';
import type { RouteModule } from '../../app.js';
import type { AppDeps } from '../../deps.js';
import { ApiError, ok } from '../../envelope.js';
import { parseOr400 } from '../../validate.js';
import { requirePlatformSource, sellerAuth, sellerOf } from '../../middleware/auth.js';
import { sellerRateLimit } from '../../middleware/rate-limit.js';
import { sellerWriteCap } from '../../middleware/write-cap.js';
import {
  bulkBodySchema,
  bulkItemSchema,
  listingsPostBodySchema,
  listingUpsertItemSchema,
  MAX_WRITE_ITEMS,
  type ListingWriteResult,
} from '../../schemas/seller.js';
import { withTransaction } from '../../../db/pool.js';
import {
  catalogProductsOfSkus,
  lockSellerListings,
  storedListingsForWrite,
  purgeSellerListings,
  writeListingRows,
} from '../../../db/listings.js';
import { isoToMicros, microsToIso, planListingWrites, type PlanItem, type StoredListing } from '../../../lib/listing-plan.js';

// POST /listings, POST /listings/bulk, POST /listings/purge. Each request is one transaction of
// a fixed number of set-based statements (lock, catalog lookup, stored rows, one write), whatever
// the item count; the per-item decisions are made in TS by planListingWrites.

function tooLarge(n: number): ApiError {
  return new ApiError(413, 'BATCH_TOO_LARGE', `${n} items in one listing write; at most ${MAX_WRITE_ITEMS} are allowed`, {
    maxItems: MAX_WRITE_ITEMS,
    items: n,
  });
}

function issuesText(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(item)'}: ${i.message}`)
    .join('; ');
}

/** The JSON body, or 400 when none was sent (body-parser turns an empty body into `{}`). */
function requiredBody(req: Request): unknown {
  const sent = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!sent || req.body === undefined) {
    throw new ApiError(400, 'INVALID_REQUEST', 'Request body is required', [{ field: '(root)', message: 'Request body is required' }]);
  }
  return req.body;
}

const field = (raw: unknown, name: string): unknown =>
  raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>)[name] : undefined;

/** What a rejected item's result can still echo: an integer skuId (else 0), its op, a valid externalRef. */
function invalidItem(raw: unknown, defaultOp: 'upsert' | 'delete', reason: string): PlanItem {
  const sku = field(raw, 'skuId');
  const ref = field(raw, 'externalRef');
  return {
    op: field(raw, 'op') === 'delete' ? 'delete' : defaultOp,
    skuId: typeof sku === 'number' && Number.isSafeInteger(sku) ? sku : 0,
    externalRef: typeof ref === 'string' && ref.length <= 255 ? ref : undefined,
    invalid: reason,
  };
}

/** Validates one raw item on its own: a malformed item becomes a `rejected` result, never a 400. */
export function toPlanItem(raw: unknown, schema: typeof listingUpsertItemSchema | typeof bulkItemSchema): PlanItem {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return invalidItem(raw, 'upsert', issuesText(parsed.error));
  const item = parsed.data;
  let asOf: bigint | undefined;
  if (item.asOf !== undefined) {
    const us = isoToMicros(item.asOf);
    if (us === null) return invalidItem(raw, 'upsert', 'asOf: invalid date-time (years 0001 to 9999 in UTC)');
    asOf = us;
  }
  if (item.op === 'delete') {
    return { op: 'delete', skuId: item.skuId, externalRef: item.externalRef, asOf };
  }
  return {
    op: 'upsert',
    skuId: item.skuId,
    productId: item.productId,
    price: item.price,
    quantity: item.quantity,
    externalRef: item.externalRef,
    asOf,
  };
}

/** Applies validated items for one seller in one transaction; returns one result per item, in order. */
export async function applyListingWrites(deps: AppDeps, sellerId: number, items: readonly PlanItem[]): Promise<ListingWriteResult[]> {
  const skuIds = [...new Set(items.filter((i) => !('invalid' in i)).map((i) => i.skuId))];
  if (skuIds.length === 0) return planListingWrites(items, new Map(), new Map()).results;
  return withTransaction(deps.pool, async (c) => {
    // The catalog lookup needs no lock: doing it first keeps the per-seller critical section
    // (stored rows + write + commit) short, which is what bounds one seller's write throughput.
    const catalog = await catalogProductsOfSkus(c, skuIds);
    await lockSellerListings(c, sellerId);
    const storedRows = await storedListingsForWrite(c, sellerId, skuIds);
    const stored = new Map<number, StoredListing>(
      storedRows.map((r) => [
        r.skuId,
        {
          productId: r.productId,
          price: r.price,
          quantity: r.quantity,
          externalRef: r.externalRef,
          asOf: r.asOfMicros,
          deleted: r.deleted,
          matched: r.matched,
        },
      ]),
    );
    const plan = planListingWrites(items, stored, catalog);
    await writeListingRows(
      c,
      sellerId,
      plan.rows.map((r) => ({
        skuId: r.skuId,
        productId: r.productId,
        price: r.price,
        quantity: r.quantity,
        externalRef: r.externalRef,
        asOf: r.asOf === null ? null : microsToIso(r.asOf),
        deleted: r.deleted,
        matched: catalog.has(r.skuId),
      })),
    );
    return plan.results;
  });
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
    res.json(ok({ results: await applyListingWrites(deps, sellerOf(req).sellerId, items) }));
  });

  app.post('/listings/bulk', ...guard, async (req, res) => {
    // Count first: an oversized batch is 413 even if its envelope has other faults.
    const raw = requiredBody(req);
    const rawItems = field(raw, 'items');
    if (Array.isArray(rawItems) && rawItems.length > MAX_WRITE_ITEMS) throw tooLarge(rawItems.length);
    const body = parseOr400(bulkBodySchema, raw);
    const items = body.items.map((r) => toPlanItem(r, bulkItemSchema));
    res.json(ok({ results: await applyListingWrites(deps, sellerOf(req).sellerId, items) }));
  });

  app.post('/listings/purge', ...guard, async (req, res) => {
    const sellerId = sellerOf(req).sellerId;
    const purged = await withTransaction(deps.pool, async (c) => {
      await lockSellerListings(c, sellerId);
      return purgeSellerListings(c, sellerId);
    });
    res.json(ok({ purged }));
  });
};
