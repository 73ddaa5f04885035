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
import { quarantinedAmong } from '../src/db/index-quarantine.js';
import { handoffOfferDocs, nativeOfferDocs } from '../src/search/documents/builders.js';
import { docId, parseDocId, type OfferDoc } from '../src/search/documents/model.js';
import { cardProductsOf, staleCards, type CardView, type IndexedOffer, type OfferChange } from './stale-cards.js';

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
      /**
       * The offers whose cards come along (all when absent): the platform switch's pages narrow it
       * to the pairs that also changed, and offer-only changes (a repricing) leave theirs out.
       */
      cardScope?: ReadonlySet<string>;
    }
  | {
      kind: 'handoff';
      variantIds: number[];
      /** As a native chunk's: the offers whose cards come along (all when absent). */
      cardScope?: ReadonlySet<string>;
    }
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
  /**
   * The cards to rewrite: their products, and every offer of those products; `kept`: the cards
   * the chunk's offers are on that already show them as they are (left as the index has them).
   */
  cards: { productIds: readonly number[]; kept: readonly number[]; rows: readonly NativeRow[]; variants: readonly VariantFacts[] };
}

/** How the index holds documents now (realtime gets, not searches): index-views.ts. */
export interface IndexViews {
  /** The chunk's offers as the index has them (absent ones are left out), by id. */
  offers: (offerIds: string[]) => Promise<Map<string, IndexedOffer>>;
  /** The cards of these products that exist, as the index has them. */
  cards: (productIds: number[]) => Promise<Map<number, CardView>>;
  /** Products whose card is recomputed whatever the index shows (this batch already wrote it). */
  recompute: (productId: number) => boolean;
}

export interface LoadOptions {
  /** What the index holds now; without it no cards are read (the chunk's own documents only). */
  indexed?: IndexViews;
  /** A rebuild's: sellers and products read once per snapshot. */
  cache?: SnapshotCache;
}

/** Reads one chunk's facts: its rows, what they name, and every offer of the cards they make wrong. */
export async function loadFacts(db: Db, chunk: Chunk, poBox: boolean, opts: LoadOptions = {}): Promise<Facts> {
  // 1. The chunk's own rows; where the index has its offers now is read meanwhile.
  const { own, indexedOffers } = await ownRows(db, chunk, opts.indexed);
  // 2. The sellers, products and stores they name, and the cards (and their quarantine rows) of
  //    the products the rows put their offers on, while the offers are still being read; then
  //    the cards of products the index had them on that the rows do not name (moved, gone).
  const productOf = ownProducts(own);
  const cardsOfRows = [...new Set(own.scope.map((id) => productOf.get(id)).filter((p) => p !== undefined))];
  const [lookups, onRows] = await Promise.all([
    loadLookups(
      db,
      {
        sellerIds: [...own.sellerIds, ...own.rows.map((r) => r.listing.sellerId)],
        productIds: [...own.productIds, ...own.rows.map((r) => r.sku.productId), ...own.handoff.map(offerProductId)],
        storeSlugs: own.handoff.map((r) => r.variant.storeSlug),
        countsOf: own.countsOf,
      },
      opts.cache,
    ),
    readCards(db, opts.indexed, cardsOfRows),
    indexedOffers,
  ]);
  const cardsOf = [...new Set(own.changes.flatMap((c) => cardProductsOf(c.was, productOf.get(c.id))))];
  const onRowsSet = new Set(cardsOfRows);
  const elsewhere = await readCards(
    db,
    opts.indexed,
    cardsOf.filter((id) => !onRowsSet.has(id)),
  );
  const cards = new Map([...onRows.cards, ...elsewhere.cards]);
  const refused = new Set([...onRows.refused, ...elsewhere.refused]);
  const skus = new Map(own.skus);
  for (const r of own.handoff) if (r.sku) skus.set(r.sku.skuId, r.sku);
  // 3. The cards the offers' documents now make wrong (stale-cards.ts), and every offer of their products.
  const recompute = (productId: number) => opts.indexed!.recompute(productId) || refused.has(docId.card(productId));
  const stale = opts.indexed ? staleCards(offersNow(own, lookups, skus, poBox), cards, recompute) : new Set<number>();
  const cardProducts = [...stale];
  const [cardRows, cardHandoff] =
    cardProducts.length === 0 ? [[], []] : await Promise.all([nativeRowsOfProducts(db, cardProducts), handoffRowsOfProducts(db, cardProducts)]);
  // 4. The sellers, products and stores those offers name that step 2 did not read.
  const more = await loadLookups(
    db,
    {
      sellerIds: cardRows.map((r) => r.listing.sellerId).filter((id) => !lookups.sellers.has(id)),
      productIds: [...cardRows.map((r) => r.sku.productId), ...cardHandoff.map(offerProductId)].filter((id) => !lookups.products.has(id)),
      storeSlugs: cardHandoff.map((r) => r.variant.storeSlug).filter((slug) => !lookups.stores.has(slug)),
    },
    opts.cache,
  );
  for (const r of cardHandoff) if (r.sku) skus.set(r.sku.skuId, r.sku);
  return {
    sellers: new Map([...lookups.sellers, ...more.sellers]),
    products: new Map([...lookups.products, ...more.products]),
    stores: new Map([...lookups.stores, ...more.stores]),
    counts: lookups.counts,
    poBox,
    rows: own.rows,
    variants: own.handoff.map((r) => r.variant),
    skus,
    cards: { productIds: cardProducts, kept: cardsOf.filter((id) => !stale.has(id)), rows: cardRows, variants: cardHandoff.map((r) => r.variant) },
  };
}

/** These products' cards as the index holds them, and which of them are quarantined (refused, so absent: recomputed). */
async function readCards(db: Db, indexed: IndexViews | undefined, productIds: number[]): Promise<{ cards: Map<number, CardView>; refused: Set<string> }> {
  if (!indexed || productIds.length === 0) return { cards: new Map(), refused: new Set() };
  const [cards, refused] = await Promise.all([indexed.cards(productIds), quarantinedAmong(db, productIds.map(docId.card))]);
  return { cards, refused };
}

/**
 * A pair neither PostgreSQL nor the index has as an offer may still be on a card: a batch that
 * failed (or a process that died) after its cards were written and before its offers were, and a
 * listing deleted since. Its sku says which card (a native group is its sku and seller): tested
 * as if the index had the offer there.
 */
async function orphanCards(db: Db, own: OwnRows): Promise<void> {
  const live = new Set(own.rows.map((r) => docId.native(r.listing.sellerId, r.listing.skuId)));
  const orphans = own.changes.filter((c) => c.was === undefined && !live.has(c.id));
  if (orphans.length === 0) return;
  const pairs = orphans.map((c) => parseDocId(c.id)).filter((p) => p?.type === 'native');
  const skus = await skuFacts(
    db,
    pairs.map((p) => p.skuId),
  );
  for (const c of orphans) {
    const p = parseDocId(c.id);
    const sku = p?.type === 'native' ? skus.get(p.skuId) : undefined;
    if (p?.type === 'native' && sku) c.was = { productId: sku.productId, skuId: p.skuId, storeKey: `n:${p.sellerId}` };
  }
}

/** The product each of the chunk's rows puts its offer on (the offer builders decide the same). */
function ownProducts(own: OwnRows): Map<string, number> {
  return new Map([
    ...own.rows.map((r): [string, number] => [docId.native(r.listing.sellerId, r.listing.skuId), r.sku.productId]),
    ...own.handoff.map((r): [string, number] => [docId.handoff(r.variant.variantId), offerProductId(r)]),
  ]);
}

/** The chunk's offers in scope: where the index has them, and their documents from PostgreSQL now (build-ops.ts builds the same). */
function offersNow(own: OwnRows, l: Lookups, skus: ReadonlyMap<number, SkuFacts>, poBox: boolean): OfferChange[] {
  const docs = new Map<string, OfferDoc>();
  for (const o of nativeOfferDocs(own.rows, l.sellers, l.products, poBox)) docs.set(o.id, o.doc);
  for (const o of handoffOfferDocs(
    own.handoff.map((r) => r.variant),
    skus,
    l.stores,
    l.products,
  ))
    docs.set(o.id, o.doc);
  return own.changes.map((c) => ({ was: c.was, now: docs.get(c.id) }));
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
  /** The offers in scope (cards come along for them)... */
  scope: string[];
  /** ... with where the index has them now (once `indexedOffers` of ownRows is done). */
  changes: { id: string; was?: IndexedOffer }[];
}

async function ownRows(db: Db, chunk: Chunk, indexed: IndexViews | undefined): Promise<{ own: OwnRows; indexedOffers: Promise<void> }> {
  const own: OwnRows = { rows: [], handoff: [], skus: new Map(), sellerIds: [], productIds: [], countsOf: [], scope: [], changes: [] };
  const done = { own, indexedOffers: Promise.resolve() };
  // Where the index has the offers in scope: read while PostgreSQL reads the rows, awaited by the
  // caller (a no-op handler meanwhile: if the rows' read fails first, this is no unhandled rejection).
  const readIndexed = (ids: string[], after: () => Promise<void>) => {
    own.scope = ids;
    if (!indexed) return async () => undefined;
    const was = indexed.offers(ids);
    was.catch(() => undefined);
    return async () => {
      const got = await was;
      own.changes = ids.map((id) => ({ id, was: got.get(id) }));
      await after();
    };
  };
  switch (chunk.kind) {
    case 'native': {
      const scope = chunk.cardScope;
      const ids = chunk.pairs.map((p) => docId.native(p.sellerId, p.skuId)).filter((id) => !scope || scope.has(id));
      const finish = readIndexed(ids, () => orphanCards(db, own));
      own.rows = await nativeRows(
        db,
        chunk.pairs.map((p) => p.sellerId),
        chunk.pairs.map((p) => p.skuId),
      );
      done.indexedOffers = finish();
      return done;
    }
    case 'handoff': {
      const scope = chunk.cardScope;
      const ids = chunk.variantIds.map(docId.handoff).filter((id) => !scope || scope.has(id));
      const finish = readIndexed(ids, async () => undefined);
      own.handoff = await handoffRows(db, chunk.variantIds);
      done.indexedOffers = finish();
      return done;
    }
    case 'product':
      own.productIds = chunk.productIds;
      return done;
    case 'sku':
      own.skus = await skuFacts(db, chunk.skuIds);
      own.productIds = [...own.skus.values()].map((s) => s.productId);
      return done;
    case 'seller':
      own.sellerIds = chunk.sellerIds;
      own.countsOf = chunk.sellerIds;
      return done;
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
