import type { z } from 'zod';
import { bulkItemSchema, listingUpsertItemSchema, type ListingWriteResult } from '../contract/seller.js';
import { withTransaction, type Pool } from '../db/pool.js';
import { catalogProductsOfSkus, lockSellerListings, purgeSellerListings, storedListingsForWrite, writeListingRows } from '../db/listings.js';
import { isoToMicros, microsToIso } from '../lib/micros.js';
import { planListingWrites, type PlanItem, type StoredListing } from './plan.js';

// The write side of a seller's listings (POST /listings, /listings/bulk, /listings/purge). Each
// write is one transaction of a fixed number of set-based statements (lock, catalog lookup,
// stored rows, one write), whatever the item count; the per-item decisions are made in TS by
// planListingWrites (./plan.ts).

function issuesText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : '(item)'}: ${i.message}`).join('; ');
}

export const field = (raw: unknown, name: string): unknown =>
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
export async function applyListingWrites(pool: Pool, sellerId: number, items: readonly PlanItem[]): Promise<ListingWriteResult[]> {
  const skuIds = [...new Set(items.filter((i) => !('invalid' in i)).map((i) => i.skuId))];
  if (skuIds.length === 0) return planListingWrites(items, new Map(), new Map()).results;
  return withTransaction(pool, async (c) => {
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

/** Deletes every listing of the seller (under the seller's write lock); returns how many. */
export async function purgeListings(pool: Pool, sellerId: number): Promise<number> {
  return withTransaction(pool, async (c) => {
    await lockSellerListings(c, sellerId);
    return purgeSellerListings(c, sellerId);
  });
}
