import type { Pool, PoolClient } from '../src/db/pool.js';
import {
  handoffStoreFacts,
  nativeRows,
  pairsPage,
  poBoxSuspended,
  productFacts,
  sellerFacts,
  skuFacts,
  variantFacts,
  type Pair,
} from '../src/db/offer-source.js';
import {
  docId,
  handoffOfferDoc,
  nativeOfferDoc,
  productDoc,
  sellerDoc,
  skuDoc,
  type IndexDoc,
} from '../src/search/documents.js';
import type { Targets } from './targets.js';

type Db = Pool | PoolClient;

/** One bulk action: the document as PostgreSQL says it is now, or its removal. */
export type DocOp = { id: string; doc: IndexDoc } | { id: string; doc: null };

export const CHUNK = 2000;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export async function nativeOps(db: Db, pairs: Pair[], poBox: boolean): Promise<DocOp[]> {
  const rows = await nativeRows(
    db,
    pairs.map((p) => p.sellerId),
    pairs.map((p) => p.skuId),
  );
  const [sellers, products] = await Promise.all([
    sellerFacts(db, [...new Set(rows.map((r) => r.listing.sellerId))]),
    productFacts(db, [...new Set(rows.map((r) => r.sku.productId))]),
  ]);
  const found = new Set<string>();
  const ops: DocOp[] = [];
  for (const r of rows) {
    const seller = sellers.get(r.listing.sellerId);
    if (!seller) continue;
    const id = docId.native(r.listing.sellerId, r.listing.skuId);
    found.add(id);
    ops.push({ id, doc: nativeOfferDoc(r.listing, r.sku, seller, products.get(r.sku.productId), poBox) });
  }
  for (const p of pairs) {
    const id = docId.native(p.sellerId, p.skuId);
    if (!found.has(id)) ops.push({ id, doc: null });
  }
  return ops;
}

export async function handoffOps(db: Db, variantIds: number[]): Promise<DocOp[]> {
  const variants = await variantFacts(db, variantIds);
  const [skus, stores] = await Promise.all([
    skuFacts(db, [...new Set(variants.map((v) => v.skuId))]),
    handoffStoreFacts(db, [...new Set(variants.map((v) => v.storeSlug))]),
  ]);
  const products = await productFacts(db, [...new Set(variants.map((v) => skus.get(v.skuId)?.productId ?? v.productId))]);
  const found = new Set<number>();
  const ops: DocOp[] = [];
  for (const v of variants) {
    const store = stores.get(v.storeSlug);
    if (!store) continue;
    const sku = skus.get(v.skuId);
    found.add(v.variantId);
    ops.push({ id: docId.handoff(v.variantId), doc: handoffOfferDoc(v, sku, store, products.get(sku?.productId ?? v.productId)) });
  }
  for (const id of variantIds) if (!found.has(id)) ops.push({ id: docId.handoff(id), doc: null });
  return ops;
}

export async function productOps(db: Db, productIds: number[]): Promise<DocOp[]> {
  const products = await productFacts(db, productIds);
  return productIds.map((id) => {
    const p = products.get(id);
    return { id: docId.product(id), doc: p ? productDoc(p) : null };
  });
}

export async function skuOps(db: Db, skuIds: number[]): Promise<DocOp[]> {
  const skus = await skuFacts(db, skuIds);
  const products = await productFacts(db, [...new Set([...skus.values()].map((s) => s.productId))]);
  return skuIds.map((id) => {
    const s = skus.get(id);
    return { id: docId.sku(id), doc: s ? skuDoc(s, products.get(s.productId)) : null };
  });
}

export async function sellerOps(db: Db, sellerIds: number[]): Promise<DocOp[]> {
  const sellers = await sellerFacts(db, sellerIds);
  return sellerIds.map((id) => {
    const s = sellers.get(id);
    return { id: docId.seller(id), doc: s ? sellerDoc(s) : null };
  });
}

/**
 * Every document the targets name, recomputed from PostgreSQL, in chunks small enough for one
 * bulk request each. Targets of the platform switch page through all listings.
 */
export async function* opsForTargets(db: Db, t: Targets): AsyncGenerator<DocOp[]> {
  const poBox = await poBoxSuspended(db);
  if (t.allNative) {
    let after: Pair | null = null;
    for (;;) {
      const page = await pairsPage(db, after, CHUNK);
      if (page.length === 0) break;
      for (const p of page) t.pairs.delete(`${p.sellerId}:${p.skuId}`);
      yield await nativeOps(db, page, poBox);
      after = page[page.length - 1]!;
    }
  }
  for (const c of chunks([...t.pairs.values()], CHUNK)) yield await nativeOps(db, c, poBox);
  for (const c of chunks([...t.variants], CHUNK)) yield await handoffOps(db, c);
  for (const c of chunks([...t.products], CHUNK)) yield await productOps(db, c);
  for (const c of chunks([...t.skus], CHUNK)) yield await skuOps(db, c);
  for (const c of chunks([...t.sellers], CHUNK)) yield await sellerOps(db, c);
}
