// The pure half of a listing write (POST /listings, POST /listings/bulk): given the validated
// items in request order, the stored listings of their skus and the catalog's sku -> product
// map, decide every item's outcome and the final row of each sku. The database half then
// writes those final rows with one set-based statement.
//
// Items are folded in order against a running state per sku, exactly as if they were applied
// one by one: an item's stale check and "new listing needs productId/price/quantity" rule see
// the effect of the earlier items of the same request. So a later item for the same sku wins,
// each earlier item still gets its own honest outcome (`applied`/`unmatched` if it was valid at
// its turn, `rejected` otherwise), and only the last state per sku is written.

import type { ListingWriteResult } from '../contract/seller.js';
import { microsToIso, type Micros } from '../lib/micros.js';

export interface UpsertItem {
  op: 'upsert';
  skuId: number;
  productId?: number;
  price?: number;
  quantity?: number;
  /** undefined: keep stored value; null: clear. */
  externalRef?: string | null;
  asOf?: Micros;
}

export interface DeleteItem {
  op: 'delete';
  skuId: number;
  externalRef?: string | null;
  asOf?: Micros;
}

/** An item that already failed validation: it keeps its slot in the results. */
export interface InvalidItem {
  op: 'upsert' | 'delete';
  skuId: number;
  externalRef?: string | null;
  invalid: string;
}

export type PlanItem = UpsertItem | DeleteItem | InvalidItem;

export interface ListingState {
  productId: number;
  price: number;
  quantity: number;
  externalRef: string | null;
  asOf: Micros | null;
  deleted: boolean;
}

export interface StoredListing extends ListingState {
  matched: boolean;
}

export interface FinalRow extends ListingState {
  skuId: number;
}

export interface WritePlan {
  results: ListingWriteResult[];
  /** Final state of every sku whose row must change (new, updated, deleted or revived). */
  rows: FinalRow[];
}

function result(item: PlanItem, status: ListingWriteResult['status'], reason?: string): ListingWriteResult {
  const r: ListingWriteResult = { skuId: item.skuId, op: item.op, status };
  if (reason !== undefined) r.reason = reason;
  if (typeof item.externalRef === 'string') r.externalRef = item.externalRef;
  return r;
}

function staleReason(asOf: Micros | undefined, current: ListingState | undefined): string | null {
  if (asOf === undefined || !current || current.asOf === null || asOf >= current.asOf) return null;
  return `stale: asOf ${microsToIso(asOf)} is earlier than the stored asOf ${microsToIso(current.asOf)}`;
}

export function planListingWrites(
  items: readonly PlanItem[],
  stored: ReadonlyMap<number, StoredListing>,
  catalog: ReadonlyMap<number, number>,
): WritePlan {
  const state = new Map<number, ListingState>();
  const current = (sku: number): ListingState | undefined => state.get(sku) ?? stored.get(sku);
  const results: ListingWriteResult[] = [];

  for (const item of items) {
    if ('invalid' in item) {
      results.push(result(item, 'rejected', item.invalid));
      continue;
    }
    const cur = current(item.skuId);
    const stale = staleReason(item.asOf, cur);
    if (stale) {
      results.push(result(item, 'rejected', stale));
      continue;
    }
    if (item.op === 'delete') {
      // Absent: nothing to delete, still applied. Present: soft-delete (or move a tombstone's asOf on).
      if (cur) {
        const { productId, price, quantity, externalRef } = cur;
        state.set(item.skuId, { productId, price, quantity, externalRef, asOf: item.asOf ?? cur.asOf, deleted: true });
      }
      results.push(result(item, 'applied'));
      continue;
    }
    const productId = item.productId ?? cur?.productId;
    const price = item.price ?? cur?.price;
    const quantity = item.quantity ?? cur?.quantity;
    if (productId === undefined || price === undefined || quantity === undefined) {
      const missing = [productId, price, quantity]
        .map((v, i) => (v === undefined ? ['productId', 'price', 'quantity'][i] : null))
        .filter((v) => v !== null);
      results.push(result(item, 'rejected', `a new listing needs ${missing.join(', ')}`));
      continue;
    }
    const catalogProduct = catalog.get(item.skuId);
    if (catalogProduct !== undefined && catalogProduct !== productId) {
      results.push(result(item, 'rejected', `productId ${productId} contradicts the catalog: sku ${item.skuId} belongs to product ${catalogProduct}`));
      continue;
    }
    state.set(item.skuId, {
      productId,
      price,
      quantity,
      externalRef: item.externalRef !== undefined ? item.externalRef : (cur?.externalRef ?? null),
      asOf: item.asOf ?? cur?.asOf ?? null,
      deleted: false,
    });
    results.push(result(item, catalogProduct === undefined ? 'unmatched' : 'applied'));
  }

  const rows: FinalRow[] = [];
  for (const [skuId, s] of state) {
    const before = stored.get(skuId);
    if (!before) {
      // New, or created then deleted in one request: items apply in order, so the latter is a
      // soft-deleted row with the upsert's values (export shows it; a later partial upsert revives it).
      rows.push({ skuId, ...s });
      continue;
    }
    const matched = catalog.has(skuId);
    const unchanged =
      before.productId === s.productId &&
      before.price === s.price &&
      before.quantity === s.quantity &&
      before.externalRef === s.externalRef &&
      before.asOf === s.asOf &&
      before.deleted === s.deleted &&
      before.matched === matched;
    if (!unchanged) rows.push({ skuId, ...s });
  }
  return { results, rows };
}
