import { LRUCache } from 'lru-cache';
import type { Pool, PoolClient } from '../src/db/pool.js';
import {
  handoffRows,
  handoffRowsOfProducts,
  handoffStoreFacts,
  nativeRows,
  nativeRowsOfProducts,
  productFacts,
  sellerCounts,
  sellerFacts,
  skuFacts,
  type HandoffRow,
  type HandoffStoreFacts,
  type NativeRow,
  type Pair,
  type ProductFacts,
  type SellerCounts,
  type SellerFacts,
  type SkuFacts,
  type VariantFacts,
} from '../src/db/offer-source.js';
import { docId } from '../src/search/documents/model.js';

// The indexer reads as targets -> facts -> documents: fan-out.ts and targets.ts say which
// documents a batch rewrites, in chunks; this file reads what PostgreSQL (and, for cards, the
// index) says about one chunk, all of it before any document is built; build-ops.ts builds the
// documents from those facts without I/O. The SQL is in src/db/offer-source.ts.

type Db = Pool | PoolClient;

/** Documents of one kind that one bulk request rewrites (at most build-ops.ts CHUNK keys). */
export type Chunk =
  | {
      kind: 'native';
      pairs: Pair[];
      /** The offers whose cards come along (all when absent): the platform switch's pages narrow it to the pairs that also changed. */
      cardScope?: ReadonlySet<string>;
    }
  | { kind: 'handoff'; variantIds: number[] }
  | { kind: 'product'; productIds: number[] }
  | { kind: 'sku'; skuIds: number[] }
  | { kind: 'seller'; sellerIds: number[] };

/** Sellers, products and stores by key, read once for every document that names them. */
export interface Lookups {
  sellers: ReadonlyMap<number, SellerFacts>;
  /** Only the counters asked for: those of seller documents. */
  counts: ReadonlyMap<number, SellerCounts>;
  products: ReadonlyMap<number, ProductFacts>;
  stores: ReadonlyMap<string, HandoffStoreFacts>;
}

/** Everything one chunk's documents are built from. */
export interface Facts extends Lookups {
  /** The platform-wide PO-box suspension. */
  poBox: boolean;
  /** Live, matched listings among the chunk's pairs. */
  rows: readonly NativeRow[];
  /** The chunk's handoff variants that exist. */
  variants: readonly VariantFacts[];
  /** Catalog skus: the chunk's own, and every variant's here. */
  skus: ReadonlyMap<number, SkuFacts>;
  /** The cards to rewrite: their products, and every offer of those products. */
  cards: { productIds: readonly number[]; rows: readonly NativeRow[]; variants: readonly VariantFacts[] };
}

/**
 * The product ids the index holds now for these offer ids (absent ones are left out). An offer
 * that moved to another product (its sku was re-pointed) must take its old product's card along.
 */
export type IndexedProducts = (offerIds: string[]) => Promise<number[]>;

export interface LoadOptions {
  /** Where the index has the chunk's offers now; without it no cards are read (the chunk's own documents only). */
  indexed?: IndexedProducts;
  /** A rebuild's: sellers and products read once per snapshot. */
  cache?: SnapshotCache;
}

/** Reads one chunk's facts in three steps, each step's queries at once. */
export async function loadFacts(db: Db, chunk: Chunk, poBox: boolean, opts: LoadOptions = {}): Promise<Facts> {
  // 1. The chunk's own rows, and the products the index has its offers under now.
  const own = await ownRows(db, chunk, opts.indexed);
  // 2. Every offer of the products whose cards those offers touch, before and after.
  const cardProducts = [...own.cardProducts];
  const [cardRows, cardHandoff] = await Promise.all([nativeRowsOfProducts(db, cardProducts), handoffRowsOfProducts(db, cardProducts)]);
  // 3. The sellers, products and stores all of them name.
  const rows = [...own.rows, ...cardRows];
  const handoff = [...own.handoff, ...cardHandoff];
  const lookups = await loadLookups(
    db,
    {
      sellerIds: [...own.sellerIds, ...rows.map((r) => r.listing.sellerId)],
      productIds: [...own.productIds, ...rows.map((r) => r.sku.productId), ...handoff.map(offerProductId)],
      storeSlugs: handoff.map((r) => r.variant.storeSlug),
      countsOf: own.countsOf,
    },
    opts.cache,
  );
  const skus = new Map(own.skus);
  for (const r of handoff) if (r.sku) skus.set(r.sku.skuId, r.sku);
  return {
    ...lookups,
    poBox,
    rows: own.rows,
    variants: own.handoff.map((r) => r.variant),
    skus,
    cards: { productIds: cardProducts, rows: cardRows, variants: cardHandoff.map((r) => r.variant) },
  };
}

/** The product a handoff variant's offer belongs to (as handoffOfferDoc decides). */
const offerProductId = (r: HandoffRow) => r.sku?.productId ?? r.variant.productId;

interface OwnRows {
  rows: NativeRow[];
  handoff: HandoffRow[];
  skus: Map<number, SkuFacts>;
  /** Keys the chunk's own documents name directly. */
  sellerIds: number[];
  productIds: number[];
  countsOf: number[];
  cardProducts: Set<number>;
}

async function ownRows(db: Db, chunk: Chunk, indexed: IndexedProducts | undefined): Promise<OwnRows> {
  const own: OwnRows = { rows: [], handoff: [], skus: new Map(), sellerIds: [], productIds: [], countsOf: [], cardProducts: new Set() };
  switch (chunk.kind) {
    case 'native': {
      const scope = chunk.cardScope;
      const ids = chunk.pairs.map((p) => docId.native(p.sellerId, p.skuId)).filter((id) => !scope || scope.has(id));
      const [rows, was] = await Promise.all([
        nativeRows(
          db,
          chunk.pairs.map((p) => p.sellerId),
          chunk.pairs.map((p) => p.skuId),
        ),
        indexed ? indexed(ids) : [],
      ]);
      own.rows = rows;
      if (indexed) {
        // The products of the offers in scope, before (the index) and after (PostgreSQL). A row
        // whose seller has just gone still brings its product's card: rewriting a card is always safe.
        own.cardProducts = new Set(was);
        for (const r of rows) if (!scope || scope.has(docId.native(r.listing.sellerId, r.listing.skuId))) own.cardProducts.add(r.sku.productId);
      }
      return own;
    }
    case 'handoff': {
      const [handoff, was] = await Promise.all([handoffRows(db, chunk.variantIds), indexed ? indexed(chunk.variantIds.map(docId.handoff)) : []]);
      own.handoff = handoff;
      if (indexed) own.cardProducts = new Set([...was, ...handoff.map(offerProductId)]);
      return own;
    }
    case 'product':
      own.productIds = chunk.productIds;
      return own;
    case 'sku':
      own.skus = await skuFacts(db, chunk.skuIds);
      own.productIds = [...own.skus.values()].map((s) => s.productId);
      return own;
    case 'seller':
      own.sellerIds = chunk.sellerIds;
      own.countsOf = chunk.sellerIds;
      return own;
  }
}

/**
 * Seller and product facts of ONE snapshot (a REPEATABLE READ transaction), kept across its
 * chunks: a full rebuild meets each seller in every chunk and each product in about as many chunks
 * as it has offers, and would otherwise read them again each time. Never share one between
 * snapshots or with the live indexer, whose reads must see every new commit.
 */
export interface SnapshotCache {
  sellers: Map<number, SellerFacts | null>;
  products: LRUCache<number, { facts: ProductFacts | null }>;
}

export function snapshotCache(maxProducts = 250_000): SnapshotCache {
  return { sellers: new Map(), products: new LRUCache({ max: maxProducts }) };
}

/** The keys to look up; duplicates are fine. */
export interface Wanted {
  sellerIds?: readonly number[];
  productIds?: readonly number[];
  storeSlugs?: readonly string[];
  /** Sellers whose counters are wanted (never cached: only seller documents read them). */
  countsOf?: readonly number[];
}

/** Sellers, products, stores and counters by key, in one round of queries (sellers and products from `cache` where it has them). */
export async function loadLookups(db: Db, w: Wanted, cache?: SnapshotCache): Promise<Lookups> {
  const uniq = <T>(xs: readonly T[] | undefined): T[] => [...new Set(xs)];
  const [sellers, products, stores, counts] = await Promise.all([
    cachedSellers(db, uniq(w.sellerIds), cache),
    cachedProducts(db, uniq(w.productIds), cache),
    handoffStoreFacts(db, uniq(w.storeSlugs)),
    sellerCounts(db, uniq(w.countsOf)),
  ]);
  return { sellers, products, stores, counts };
}

async function cachedSellers(db: Db, ids: number[], cache: SnapshotCache | undefined): Promise<Map<number, SellerFacts>> {
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

async function cachedProducts(db: Db, ids: number[], cache: SnapshotCache | undefined): Promise<Map<number, ProductFacts>> {
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
