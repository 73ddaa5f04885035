import type { Pool, PoolClient } from '../src/db/pool.js';
import { LRUCache } from 'lru-cache';
import {
  handoffStoreFacts,
  nativeRows,
  nativeRowsOfProducts,
  pairsPage,
  poBoxSuspended,
  productFacts,
  sellerCounts,
  sellerFacts,
  skuFacts,
  variantFacts,
  variantsOfProducts,
  type NativeRow,
  type Pair,
  type ProductFacts,
  type SellerFacts,
  type VariantFacts,
} from '../src/db/offer-source.js';
import { handoffOfferDocs, nativeOfferDocs, productDoc, sellerDoc, skuDoc } from '../src/search/documents/builders.js';
import { cardDoc, cardFolds, foldOffer } from '../src/search/documents/card-fold.js';
import { docId, type IndexDoc } from '../src/search/documents/model.js';
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

/**
 * Seller and product facts of ONE snapshot (a REPEATABLE READ transaction), kept across its
 * chunks: a full rebuild meets each seller in every chunk and each product in about as many chunks
 * as it has offers, and would otherwise read them again each time. Never share one between
 * snapshots or with the live indexer, whose reads must see every new commit.
 */
export interface SnapshotFacts {
  sellers: Map<number, SellerFacts | null>;
  products: LRUCache<number, { facts: ProductFacts | null }>;
}

export function snapshotFacts(maxProducts = 250_000): SnapshotFacts {
  return { sellers: new Map(), products: new LRUCache({ max: maxProducts }) };
}

async function cachedSellers(db: Db, ids: number[], cache: SnapshotFacts | undefined): Promise<Map<number, SellerFacts>> {
  if (!cache) return sellerFacts(db, ids);
  const missing = ids.filter((id) => !cache.sellers.has(id));
  if (missing.length > 0) {
    const got = await sellerFacts(db, missing);
    for (const id of missing) cache.sellers.set(id, got.get(id) ?? null);
  }
  const out = new Map<number, SellerFacts>();
  for (const id of ids) {
    const f = cache.sellers.get(id);
    if (f) out.set(id, f);
  }
  return out;
}

async function cachedProducts(db: Db, ids: number[], cache: SnapshotFacts | undefined): Promise<Map<number, ProductFacts>> {
  if (!cache) return productFacts(db, ids);
  const out = new Map<number, ProductFacts>();
  const missing: number[] = [];
  for (const id of ids) {
    const hit = cache.products.get(id);
    if (hit === undefined) missing.push(id);
    else if (hit.facts) out.set(id, hit.facts);
  }
  if (missing.length > 0) {
    const got = await productFacts(db, missing);
    for (const id of missing) {
      const f = got.get(id) ?? null;
      cache.products.set(id, { facts: f });
      if (f) out.set(id, f);
    }
  }
  return out;
}

/** Offer documents of native rows (live, matched listings with their sku); rows of unknown sellers give none. */
export async function offerOpsOfRows(db: Db, rows: NativeRow[], poBox: boolean, cache?: SnapshotFacts): Promise<DocOp[]> {
  const [sellers, products] = await Promise.all([
    cachedSellers(db, [...new Set(rows.map((r) => r.listing.sellerId))], cache),
    cachedProducts(db, [...new Set(rows.map((r) => r.sku.productId))], cache),
  ]);
  return nativeOfferDocs(rows, sellers, products, poBox);
}

export async function nativeOps(db: Db, pairs: Pair[], poBox: boolean): Promise<DocOp[]> {
  const rows = await nativeRows(
    db,
    pairs.map((p) => p.sellerId),
    pairs.map((p) => p.skuId),
  );
  const ops = await offerOpsOfRows(db, rows, poBox);
  const found = new Set(ops.map((op) => op.id));
  for (const p of pairs) {
    const id = docId.native(p.sellerId, p.skuId);
    if (!found.has(id)) ops.push({ id, doc: null });
  }
  return ops;
}

export async function handoffOps(db: Db, variantIds: number[], cache?: SnapshotFacts): Promise<DocOp[]> {
  const ops = await handoffOpsOfVariants(db, await variantFacts(db, variantIds), cache);
  const found = new Set(ops.map((op) => op.id));
  for (const id of variantIds) if (!found.has(docId.handoff(id))) ops.push({ id: docId.handoff(id), doc: null });
  return ops;
}

/** Offer documents of variants already read; variants of unknown stores give none. */
async function handoffOpsOfVariants(db: Db, variants: VariantFacts[], cache?: SnapshotFacts): Promise<DocOp[]> {
  const [skus, stores] = await Promise.all([
    skuFacts(db, [...new Set(variants.map((v) => v.skuId))]),
    handoffStoreFacts(db, [...new Set(variants.map((v) => v.storeSlug))]),
  ]);
  const products = await cachedProducts(db, [...new Set(variants.map((v) => skus.get(v.skuId)?.productId ?? v.productId))], cache);
  return handoffOfferDocs(variants, skus, stores, products);
}

export async function productOps(db: Db, productIds: number[], cache?: SnapshotFacts): Promise<DocOp[]> {
  const products = await cachedProducts(db, productIds, cache);
  return productIds.map((id) => {
    const p = products.get(id);
    return { id: docId.product(id), doc: p ? productDoc(p) : null };
  });
}

export async function skuOps(db: Db, skuIds: number[], cache?: SnapshotFacts): Promise<DocOp[]> {
  const skus = await skuFacts(db, skuIds);
  const products = await cachedProducts(db, [...new Set([...skus.values()].map((s) => s.productId))], cache);
  return skuIds.map((id) => {
    const s = skus.get(id);
    return { id: docId.sku(id), doc: s ? skuDoc(s, products.get(s.productId)) : null };
  });
}

export async function sellerOps(db: Db, sellerIds: number[], cache?: SnapshotFacts): Promise<DocOp[]> {
  const [sellers, counts] = await Promise.all([cachedSellers(db, sellerIds, cache), sellerCounts(db, sellerIds)]);
  return sellerIds.map((id) => {
    const s = sellers.get(id);
    return { id: docId.seller(id), doc: s ? sellerDoc(s, counts.get(id)) : null };
  });
}

/**
 * The card of each product, from all of its offers as PostgreSQL says they are now; a product
 * without a shown offer has none (its card is deleted).
 */
export async function cardOps(db: Db, productIds: number[], poBox: boolean): Promise<DocOp[]> {
  if (productIds.length === 0) return [];
  const rows = await nativeRowsOfProducts(db, productIds);
  const variants = await variantsOfProducts(db, productIds);
  const offers = [...(await offerOpsOfRows(db, rows, poBox)), ...(await handoffOpsOfVariants(db, variants))];
  const folds = cardFolds();
  for (const op of offers) if (op.doc?.docType === 'offer') foldOffer(folds, op.doc);
  return productIds.map((id) => {
    const f = folds.products.get(id);
    return { id: docId.card(id), doc: f ? cardDoc(f) : null };
  });
}

/**
 * The product ids the index holds now for these offer ids (absent ones are left out). An offer
 * that moved to another product (its sku was re-pointed) must take its old product's card along.
 */
export type IndexedProducts = (offerIds: string[]) => Promise<number[]>;

/**
 * The chunk's offers preceded by the cards of every product they touch, before and after.
 * Cards go first: if the process dies between the two writes, the replay still finds the old
 * product ids in the index (the offers were not written yet) and recomputes those cards again.
 */
async function withCards(db: Db, offers: DocOp[], poBox: boolean, indexed: IndexedProducts, scope?: Set<string>): Promise<DocOp[][]> {
  const inScope = scope ? offers.filter((op) => scope.has(op.id)) : offers;
  const products = new Set<number>(await indexed(inScope.map((op) => op.id)));
  for (const op of inScope) if (op.doc?.docType === 'offer') products.add(op.doc.productId);
  const out = chunks(await cardOps(db, [...products], poBox), CHUNK);
  out.push(offers);
  return out;
}

/**
 * Every document the targets name, recomputed from PostgreSQL, in chunks small enough for one
 * bulk request each, with the cards of the products their offers belong to (were and are).
 * Targets of the platform switch page through all listings; the switch itself changes no card,
 * so those pages bring cards only for the pairs that also changed.
 */
export async function* opsForTargets(db: Db, t: Targets, indexed: IndexedProducts): AsyncGenerator<DocOp[]> {
  const poBox = await poBoxSuspended(db);
  if (t.allNative) {
    let after: Pair | null = null;
    for (;;) {
      const page = await pairsPage(db, after, CHUNK);
      if (page.length === 0) break;
      const changed = new Set<string>();
      for (const p of page) {
        const key = `${p.sellerId}:${p.skuId}`;
        if (t.pairs.delete(key)) changed.add(docId.native(p.sellerId, p.skuId));
      }
      yield* await withCards(db, await nativeOps(db, page, poBox), poBox, indexed, changed);
      after = page[page.length - 1]!;
    }
  }
  for (const c of chunks([...t.pairs.values()], CHUNK)) yield* await withCards(db, await nativeOps(db, c, poBox), poBox, indexed);
  for (const c of chunks([...t.variants], CHUNK)) yield* await withCards(db, await handoffOps(db, c), poBox, indexed);
  for (const c of chunks([...t.products], CHUNK)) yield await productOps(db, c);
  for (const c of chunks([...t.skus], CHUNK)) yield await skuOps(db, c);
  for (const c of chunks([...new Set([...t.sellers, ...t.sellerDocs])], CHUNK)) yield await sellerOps(db, c);
}
