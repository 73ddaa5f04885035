import { z } from 'zod';
import type { RouteModule } from '../../app.js';
import { ApiError, ok } from '../../envelope.js';
import { parseOr400 } from '../../validate.js';
import { sellerAuth, sellerOf } from '../../middleware/auth.js';
import { sellerRateLimit } from '../../middleware/rate-limit.js';
import { listingsExportQuerySchema, type Listing } from '../../../contract/seller.js';
import { exportSellerListings, type ExportListingRow } from '../../../db/listings.js';
import { signCursor, verifyCursor } from '../../../lib/cursor.js';
import { isoToMicros, microsToIso } from '../../../lib/micros.js';

// GET /listings: the seller's stored listings for audit, keyset-paginated on (updated_at,
// listing_id) ascending. The cursor carries the position and the filters it was minted under;
// a request that names different filters alongside it is refused rather than silently mixed.

// The seller id is part of what the MAC covers: a cursor is only accepted from the seller it was
// issued to (a cursor passed on to another seller, even one who knows the secret's output, is a 400).
export const exportCursorKind = (sellerId: number) => `seller-listings-export:${sellerId}`;
const DEFAULT_LIMIT = 100;

/** Exact UTC microsecond text as the API itself renders it: a real instant in years 0001-9999. */
const exactInstant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
  .refine((t) => {
    const us = isoToMicros(t);
    return us !== null && microsToIso(us) === t;
  }, 'not a valid instant');

// Every field is checked even though the cursor is signed: a leaked or default secret must not
// turn a forged cursor into a database error.
const cursorPayloadSchema = z.strictObject({
  t: exactInstant,
  id: z.int().positive().max(Number.MAX_SAFE_INTEGER),
  s: exactInstant.nullable(),
  d: z.boolean(),
});
type CursorPayload = z.output<typeof cursorPayloadSchema>;

function badCursor(message = 'Malformed or tampered cursor'): ApiError {
  return new ApiError(400, 'INVALID_REQUEST', message, [{ field: 'cursor', message }]);
}

function toListing(r: ExportListingRow): Listing {
  return {
    skuId: r.skuId,
    productId: r.productId,
    matchStatus: r.matchStatus,
    quantity: r.quantity,
    available: r.available,
    price: r.price,
    externalRef: r.externalRef,
    browsable: r.browsable,
    deletedAt: r.deletedAt === null ? null : r.deletedAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

export const sellerListingExportRoutes: RouteModule = (app, deps) => {
  app.get('/listings', sellerAuth(deps), sellerRateLimit(deps), async (req, res) => {
    const q = parseOr400(listingsExportQuerySchema, req.query);
    // updated_since normalized to exact microsecond UTC text, so it compares equal across pages.
    let updatedSince: string | null = null;
    if (q.updated_since !== undefined) {
      const us = isoToMicros(q.updated_since);
      if (us === null)
        throw new ApiError(400, 'INVALID_REQUEST', 'Request failed validation', [
          { field: 'updated_since', message: 'Invalid date-time (years 0001 to 9999 in UTC)' },
        ]);
      updatedSince = microsToIso(us);
    }
    let includeDeleted = q.include_deleted === 'true';
    let after: CursorPayload | null = null;
    if (q.cursor !== undefined) {
      const parsed = cursorPayloadSchema.safeParse(verifyCursor(deps.env.CURSOR_SECRET, exportCursorKind(sellerOf(req).sellerId), q.cursor));
      if (!parsed.success) throw badCursor();
      after = parsed.data;
      if (q.updated_since !== undefined && updatedSince !== after.s) throw badCursor('cursor was issued for a different updated_since');
      if (q.include_deleted !== undefined && includeDeleted !== after.d) throw badCursor('cursor was issued for a different include_deleted');
      updatedSince = after.s;
      includeDeleted = after.d;
    }
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await exportSellerListings(deps.pool, sellerOf(req).sellerId, {
      limit: limit + 1,
      updatedSince,
      includeDeleted,
      after: after && { updatedAt: after.t, listingId: after.id },
    });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor =
      rows.length > limit && last
        ? signCursor(deps.env.CURSOR_SECRET, exportCursorKind(sellerOf(req).sellerId), {
            t: last.updatedAtKey,
            id: last.listingId,
            s: updatedSince,
            d: includeDeleted,
          } satisfies CursorPayload)
        : null;
    res.json(ok({ items: page.map(toListing), nextCursor }));
  });
};
