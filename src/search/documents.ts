import type { Offer, Product, SearchItem } from '../contract/buyer.js';
import { FULFILLMENT_OBLIGATION, SEALED_CONDITION, disclosuresFor, reviewScore } from '../contract/policy.js';
import type { HandoffStoreFacts, ListingFacts, NativeRow, ProductFacts, SellerCounts, SellerFacts, SkuFacts, VariantFacts } from '../db/offer-source.js';
import { cardValues, sortByCodeUnits, type CardGroup } from './offer-groups.js';
import { productSortKey, terms } from './text.js';

// One Elasticsearch index holds five document types (see docs/search-design.md):
//   offer   n:{sellerId}:{skuId} / h:{variantId}: one per live matched native listing and per handoff
//           variant, with `shown` = browsable and in stock. Search and product pages filter shown;
//           the cart lookup also needs the not-shown ones (sold out, seller on vacation).
//   product p:{productId}   the Product block of the product page.
//   sku     k:{skuId}       catalog display data for the cart lookup.
//   seller  s:{sellerId}    name and readiness for the cart lookup; the seller's counters
//           (salesCount, reviewScore) that the product page joins into native offers at read time.
//   card    c:{productId}   a product with at least one shown offer, summarizing them all: search
//           answers every query from these, one per product (the offer-level filters from the
//           card's (sku, store) groups and combination keys: offer-groups.ts).
// The wire objects (offer, product, ...) are stored ready-made in non-indexed fields, so reads
// return them without reassembly.

/** Product-level fields copied onto every offer so search filters, sorts and groups on offers alone. */
export interface ProductFields {
  sortKey: string;
  nameTerms: string;
  category: string | null;
  set: string | null;
  rarity: string | null;
  collectorNumber: string | null;
  /** The product's own fields, for the search item (details are for the product page only). */
  item: Omit<ProductFacts, 'details'>;
}

/** A review score as the wire shows it. */
export type ReviewScore = Offer['reviewScore'];

/**
 * An offer as stored. A native offer leaves out its seller's counters (salesCount, reviewScore):
 * they change with every order or review of the store, and copying them into every offer would
 * rewrite all of a store's offers per order. Reads join them from the seller document
 * (joinOffer). A handoff offer keeps its store's reviewScore (a store change rewrites its
 * variants anyway) and its null salesCount.
 */
export type StoredOffer = Omit<Offer, 'salesCount' | 'reviewScore'> & { salesCount?: null; reviewScore?: ReviewScore };

/** What a native seller's offers show of the store and change per order or review: on the seller document. */
export interface SellerStats {
  salesCount: number;
  reviewScore: ReviewScore;
}

export interface OfferDoc extends ProductFields {
  docType: 'offer';
  shown: boolean;
  lane: 'native' | 'handoff';
  productId: number;
  skuId: number;
  sellerId: number | null;
  /** Product-page tie-break after lane: sellerId for native, variantId for handoff. */
  ownerId: number;
  laneOrder: 0 | 1;
  /** Distinct-store key for sellerCount: native sellers and handoff stores never collide. */
  storeKey: string;
  sellerCode: string | null;
  /** sellerCode + U+0000 + storeName: the seller facet's bucket key, ties ordered by sellerCode. */
  sellerFacet: string | null;
  condition: string | null;
  language: string | null;
  finish: string | null;
  isSealed: boolean;
  price: number;
  available: number;
  checkoutMode: 'express' | 'manual';
  offer: StoredOffer;
}

export interface ProductDoc {
  docType: 'product';
  productId: number;
  product: Product;
}

export interface SkuDoc {
  docType: 'sku';
  skuId: number;
  productId: number;
  cart: {
    product: { productId: number; name: string | null; set: string | null; image: string | null };
    sku: { condition: string | null; language: string | null; finish: string | null };
    category: string | null;
  };
}

export interface SellerDoc {
  docType: 'seller';
  sellerId: number;
  cartSeller: { name: string; browseEligible: boolean; vacation: boolean };
  stats: SellerStats;
}

/**
 * A product's shown offers folded into one document: the multi-valued offer facets say which
 * values at least one shown offer has, so a terms aggregation's doc_count is the product count a
 * facet shows, and `card` is the search item ready-made (queries without offer-level filters).
 * Its groups and combination keys answer offer-level filters (docs/search-design.md).
 */
export interface CardDoc extends Omit<ProductFields, 'item'> {
  docType: 'card';
  productId: number;
  condition: string[];
  language: string[];
  finish: string[];
  sellerCode: string[];
  sellerFacet: string[];
  checkoutMode: CardGroup['checkoutMode'][];
  /** The search item when no offer-level filter applies (every group matches). */
  card: SearchItem;
  /** Nested: one per shown (sku, store), sorted by skuId then storeKey. */
  groups: CardGroup[];
  /** Combination keys (offer-groups.ts): x_cl, x_cls, ... -> sorted distinct tuples; empty ones left out. */
  [combo: `x_${string}`]: string[];
}

export type IndexDoc = OfferDoc | ProductDoc | SkuDoc | SellerDoc | CardDoc;

export const docId = {
  native: (sellerId: number, skuId: number) => `n:${sellerId}:${skuId}`,
  handoff: (variantId: number) => `h:${variantId}`,
  product: (productId: number) => `p:${productId}`,
  sku: (skuId: number) => `k:${skuId}`,
  seller: (sellerId: number) => `s:${sellerId}`,
  card: (productId: number) => `c:${productId}`,
};

// A product's fields are the same for each of its offers: built once per facts object (a
// rebuild's snapshot keeps one per product), so its offers share them and `item` (offerDocPieces).
const productFieldsOf = new WeakMap<ProductFacts, ProductFields>();

export function productFields(productId: number, p: ProductFacts | undefined): ProductFields {
  if (p) {
    const got = productFieldsOf.get(p);
    if (got && got.item.productId === productId) return got;
  }
  const name = p?.name ?? null;
  const fields: ProductFields = {
    sortKey: productSortKey(name, productId),
    nameTerms: terms(name ?? '').join(' '),
    category: p?.category ?? null,
    set: p?.set ?? null,
    rarity: p?.rarity ?? null,
    collectorNumber: p?.collectorNumber ?? null,
    item: {
      productId,
      name,
      set: p?.set ?? null,
      category: p?.category ?? null,
      rarity: p?.rarity ?? null,
      collectorNumber: p?.collectorNumber ?? null,
      imageUrl: p?.imageUrl ?? null,
    },
  };
  if (p) productFieldsOf.set(p, fields);
  return fields;
}

// One disclosures object per category (a pure function of it), shared by that category's offers.
const disclosuresOf = new Map<string | null, ReturnType<typeof disclosuresFor>>();
function sharedDisclosures(category: string | null): ReturnType<typeof disclosuresFor> {
  let d = disclosuresOf.get(category);
  if (!d) {
    d = disclosuresFor(category);
    if (disclosuresOf.size < 1000) disclosuresOf.set(category, d);
  }
  return d;
}

/** A live, matched native listing. Not-shown offers are still indexed for the cart lookup. */
export function nativeOfferDoc(l: ListingFacts, sku: SkuFacts, seller: SellerFacts, product: ProductFacts | undefined, poBoxSuspended: boolean): OfferDoc {
  // Its fields one by one, in ProductFields' order: a spread after other keys copies slowly.
  const pf = productFields(sku.productId, product);
  const isSealed = sku.condition === SEALED_CONDITION;
  const offer: StoredOffer = {
    lane: 'native',
    productId: sku.productId,
    sellerId: l.sellerId,
    storeSlug: null,
    variantId: null,
    skuId: l.skuId,
    sellerName: seller.storeName,
    condition: sku.condition,
    language: sku.language,
    finish: sku.finish,
    isSealed,
    price: l.price,
    available: l.available,
    checkoutMode: 'express',
    sellerCode: seller.sellerCode,
    poBoxDelivery: { status: poBoxSuspended ? 'platform_suspended' : seller.poBoxDelivery },
    disclosures: sharedDisclosures(product?.category ?? null),
    fulfillmentObligation: FULFILLMENT_OBLIGATION,
  };
  return {
    docType: 'offer',
    shown: seller.browseEligible && l.available > 0,
    lane: 'native',
    productId: sku.productId,
    skuId: l.skuId,
    sellerId: l.sellerId,
    ownerId: l.sellerId,
    laneOrder: 0,
    storeKey: `n:${l.sellerId}`,
    sellerCode: seller.sellerCode,
    sellerFacet: `${seller.sellerCode}\u0000${seller.storeName}`,
    condition: sku.condition,
    language: sku.language,
    finish: sku.finish,
    isSealed,
    price: l.price,
    available: l.available,
    checkoutMode: 'express',
    sortKey: pf.sortKey,
    nameTerms: pf.nameTerms,
    category: pf.category,
    set: pf.set,
    rarity: pf.rarity,
    collectorNumber: pf.collectorNumber,
    item: pf.item,
    offer,
  };
}

// JSON of objects shared by many offers (a product's fields and item, disclosures, the
// fulfillment obligation), made once and kept as UTF-8 bytes. These objects are never modified
// after they are built.
const productPartOf = new WeakMap<ProductFields['item'], { f: Omit<ProductFields, 'item'>; bytes: Uint8Array }>();
const tailOf = new WeakMap<object, { obligation: object | null; bytes: Uint8Array }>();
const num = (n: number | null) => (n === null || !Number.isFinite(n) ? 'null' : `${n}`);
// Buffer.from: small ones share 8 kB slabs, so 250,000 product parts are not 250,000 ArrayBuffers for the collector to track.
const utf8 = (s: string): Uint8Array => Buffer.from(s);

// The JSON of the few distinct strings offers repeat (stores, sellers, sku values, enums): a
// lookup costs a third of JSON.stringify on 14 strings an offer. Bounded for the live indexer.
const jsonOfText = new Map<string, string>();
function q(s: string | null): string {
  if (s === null) return 'null';
  let j = jsonOfText.get(s);
  if (j === undefined) {
    if (jsonOfText.size >= 50_000) jsonOfText.clear();
    jsonOfText.set(s, (j = JSON.stringify(s)));
  }
  return j;
}

/** A native offer document's JSON in four pieces, in order: text, bytes, text, bytes. */
export type OfferDocPieces = [head: string, product: Uint8Array, offer: string, tail: Uint8Array];

/**
 * JSON.stringify(d) of a native offer document, byte for byte (its keys in nativeOfferDoc's
 * order; unit test offer-doc-json.test.ts), as pieces: the parts its product's offers share (the
 * product's fields and item; disclosures and fulfillment obligation) are UTF-8 bytes made once,
 * which the bulk writer copies instead of encoding 2,000,000 times. Null for other documents
 * (handoff offers included): JSON.stringify writes those.
 */
export function offerDocPieces(d: OfferDoc): OfferDocPieces | null {
  const o = d.offer;
  if (d.lane !== 'native' || o.lane !== 'native' || o.poBoxDelivery === null || o.salesCount !== undefined || o.reviewScore !== undefined) {
    return null;
  }
  let part = productPartOf.get(d.item);
  const f = part?.f;
  if (
    !part ||
    f!.sortKey !== d.sortKey ||
    f!.nameTerms !== d.nameTerms ||
    f!.category !== d.category ||
    f!.set !== d.set ||
    f!.rarity !== d.rarity ||
    f!.collectorNumber !== d.collectorNumber
  ) {
    const { sortKey, nameTerms, category, set, rarity, collectorNumber, item } = d;
    const json = JSON.stringify({ sortKey, nameTerms, category, set, rarity, collectorNumber, item }).slice(1, -1);
    part = { f: { sortKey, nameTerms, category, set, rarity, collectorNumber }, bytes: utf8(`${json},`) };
    productPartOf.set(d.item, part);
  }
  return [
    `{"docType":${q(d.docType)},"shown":${d.shown},"lane":${q(d.lane)},"productId":${num(d.productId)},"skuId":${num(d.skuId)},` +
      `"sellerId":${num(d.sellerId)},"ownerId":${num(d.ownerId)},"laneOrder":${num(d.laneOrder)},"storeKey":${q(d.storeKey)},` +
      `"sellerCode":${q(d.sellerCode)},"sellerFacet":${q(d.sellerFacet)},"condition":${q(d.condition)},"language":${q(d.language)},` +
      `"finish":${q(d.finish)},"isSealed":${d.isSealed},"price":${num(d.price)},"available":${num(d.available)},` +
      `"checkoutMode":${q(d.checkoutMode)},`,
    part.bytes,
    `"offer":{"lane":${q(o.lane)},"productId":${num(o.productId)},` +
      `"sellerId":${num(o.sellerId)},"storeSlug":${q(o.storeSlug)},"variantId":${num(o.variantId)},"skuId":${num(o.skuId)},` +
      `"sellerName":${q(o.sellerName)},"condition":${q(o.condition)},"language":${q(o.language)},"finish":${q(o.finish)},` +
      `"isSealed":${o.isSealed},"price":${num(o.price)},"available":${num(o.available)},"checkoutMode":${q(o.checkoutMode)},` +
      `"sellerCode":${q(o.sellerCode)},"poBoxDelivery":{"status":${q(o.poBoxDelivery.status)}},`,
    offerTail(o.disclosures, o.fulfillmentObligation),
  ];
}

function offerTail(disclosures: object | null, obligation: object | null): Uint8Array {
  // Keyed by the disclosures object (one per category; null has its own key).
  const key = disclosures ?? tailOf;
  const got = tailOf.get(key);
  if (got && got.obligation === obligation) return got.bytes;
  const bytes = utf8(`"disclosures":${JSON.stringify(disclosures)},"fulfillmentObligation":${JSON.stringify(obligation)}}}`);
  tailOf.set(key, { obligation, bytes });
  return bytes;
}

/** JSON.stringify(d) of an offer document, from its pieces where it has them. */
export function offerDocJson(d: OfferDoc): string {
  const p = offerDocPieces(d);
  if (!p) return JSON.stringify(d);
  const text = new TextDecoder();
  return p[0] + text.decode(p[1]) + p[2] + text.decode(p[3]);
}

/** A handoff store's synced single: browsable while its store is active (DECISIONS.md). */
export function handoffOfferDoc(v: VariantFacts, sku: SkuFacts | undefined, store: HandoffStoreFacts, product: ProductFacts | undefined): OfferDoc {
  const productId = sku?.productId ?? v.productId;
  const condition = sku?.condition ?? null;
  const isSealed = condition === SEALED_CONDITION;
  const pf = productFields(productId, product);
  const offer: StoredOffer = {
    lane: 'handoff',
    productId,
    sellerId: null,
    storeSlug: v.storeSlug,
    variantId: v.variantId,
    skuId: v.skuId,
    sellerName: store.storeName,
    condition,
    language: sku?.language ?? null,
    finish: sku?.finish ?? null,
    isSealed,
    price: v.price,
    available: v.quantity,
    checkoutMode: 'manual',
    salesCount: null,
    sellerCode: store.sellerCode,
    reviewScore: reviewScore(store.reviewSum, store.reviewCount),
    poBoxDelivery: null,
    disclosures: null,
    fulfillmentObligation: null,
  };
  return {
    docType: 'offer',
    shown: store.active && v.quantity > 0,
    lane: 'handoff',
    productId,
    skuId: v.skuId,
    sellerId: null,
    ownerId: v.variantId,
    laneOrder: 1,
    storeKey: `h:${v.storeSlug}`,
    sellerCode: store.sellerCode,
    sellerFacet: store.sellerCode === null ? null : `${store.sellerCode}\u0000${store.storeName}`,
    condition,
    language: offer.language,
    finish: offer.finish,
    isSealed,
    price: v.price,
    available: v.quantity,
    checkoutMode: 'manual',
    sortKey: pf.sortKey,
    nameTerms: pf.nameTerms,
    category: pf.category,
    set: pf.set,
    rarity: pf.rarity,
    collectorNumber: pf.collectorNumber,
    item: pf.item,
    offer,
  };
}

/**
 * The offer documents of native rows, in order; rows of sellers missing from `sellers` (unknown
 * sellers) give none. The one builder the indexer and the PostgreSQL fallback share.
 */
export function nativeOfferDocs(
  rows: readonly NativeRow[],
  sellers: ReadonlyMap<number, SellerFacts>,
  products: ReadonlyMap<number, ProductFacts>,
  poBoxSuspended: boolean,
): { id: string; doc: OfferDoc }[] {
  const out: { id: string; doc: OfferDoc }[] = [];
  for (const r of rows) {
    const seller = sellers.get(r.listing.sellerId);
    if (!seller) continue;
    out.push({
      id: docId.native(r.listing.sellerId, r.listing.skuId),
      doc: nativeOfferDoc(r.listing, r.sku, seller, products.get(r.sku.productId), poBoxSuspended),
    });
  }
  return out;
}

/** The offer documents of handoff variants, in order; variants of unknown stores give none. */
export function handoffOfferDocs(
  variants: readonly VariantFacts[],
  skus: ReadonlyMap<number, SkuFacts>,
  stores: ReadonlyMap<string, HandoffStoreFacts>,
  products: ReadonlyMap<number, ProductFacts>,
): { id: string; doc: OfferDoc }[] {
  const out: { id: string; doc: OfferDoc }[] = [];
  for (const v of variants) {
    const store = stores.get(v.storeSlug);
    if (!store) continue;
    const sku = skus.get(v.skuId);
    out.push({ id: docId.handoff(v.variantId), doc: handoffOfferDoc(v, sku, store, products.get(sku?.productId ?? v.productId)) });
  }
  return out;
}

export function productDoc(p: ProductFacts): ProductDoc {
  return {
    docType: 'product',
    productId: p.productId,
    product: {
      productId: p.productId,
      name: p.name,
      set: p.set,
      rarity: p.rarity,
      collectorNumber: p.collectorNumber,
      imageUrl: p.imageUrl,
      details: p.details,
    },
  };
}

export function skuDoc(sku: SkuFacts, p: ProductFacts | undefined): SkuDoc {
  return {
    docType: 'sku',
    skuId: sku.skuId,
    productId: sku.productId,
    cart: {
      product: { productId: sku.productId, name: p?.name ?? null, set: p?.set ?? null, image: p?.imageUrl ?? null },
      sku: { condition: sku.condition, language: sku.language, finish: sku.finish },
      category: p?.category ?? null,
    },
  };
}

export function sellerStats(c: SellerCounts | undefined): SellerStats {
  return c ? { salesCount: c.salesCount, reviewScore: reviewScore(c.reviewSum, c.reviewCount) } : NO_STATS;
}

export function cartSeller(s: SellerFacts): SellerDoc['cartSeller'] {
  return { name: s.storeName, browseEligible: s.browseEligible, vacation: s.vacation };
}

export function sellerDoc(s: SellerFacts, c: SellerCounts | undefined): SellerDoc {
  return { docType: 'seller', sellerId: s.sellerId, cartSeller: cartSeller(s), stats: sellerStats(c) };
}

/** Counters of a native offer whose seller document is missing (a seller deleted under a read). */
const NO_STATS: SellerStats = { salesCount: 0, reviewScore: { score: null, count: 0 } };

/**
 * The wire offer: a stored offer with its seller's counters joined in (native), or as stored
 * (handoff). Built field by field in the contract's order, so the JSON is byte-identical to an
 * offer that carried the counters itself, whichever store (index or PostgreSQL) answered.
 */
export function joinOffer(o: StoredOffer, stats: SellerStats | undefined): Offer {
  const native = o.lane === 'native';
  const s = stats ?? NO_STATS;
  return {
    lane: o.lane,
    productId: o.productId,
    sellerId: o.sellerId,
    storeSlug: o.storeSlug,
    variantId: o.variantId,
    skuId: o.skuId,
    sellerName: o.sellerName,
    condition: o.condition,
    language: o.language,
    finish: o.finish,
    isSealed: o.isSealed,
    price: o.price,
    available: o.available,
    checkoutMode: o.checkoutMode,
    salesCount: native ? s.salesCount : null,
    sellerCode: o.sellerCode,
    reviewScore: native ? s.reviewScore : (o.reviewScore ?? NO_STATS.reviewScore),
    poBoxDelivery: o.poBoxDelivery,
    disclosures: o.disclosures,
    fulfillmentObligation: o.fulfillmentObligation,
  };
}

/** What search knows of a product's matching offers, whichever store aggregated them. */
export interface MatchingOffers {
  fromPrice: number;
  sellerCount: number;
  isSealed: boolean;
  hasNative: boolean;
}

/** A search item: the product's fields plus its matching offers' aggregates (index and fallback alike). */
export function searchItem(item: ProductFields['item'], m: MatchingOffers): SearchItem {
  return {
    productId: item.productId,
    name: item.name,
    set: item.set,
    category: item.category,
    rarity: item.rarity,
    collectorNumber: item.collectorNumber,
    imageUrl: item.imageUrl,
    isSealed: m.isSealed,
    fromPrice: m.fromPrice,
    sellerCount: m.sellerCount,
    // Disclosures describe the native lane, so a product offered only by handoff stores has none.
    disclosures: m.hasNative ? disclosuresFor(item.category) : null,
    fulfillmentObligation: m.hasNative ? FULFILLMENT_OBLIGATION : null,
  };
}

/**
 * One product's shown offers, kept compact until its card is written (a rebuild streams offers in
 * seller order, so it holds every product's fold to the end: millions of offers). Each offer is
 * five integers in the folds' shared OfferRows: skuId, its store's and its sku values' index in
 * the folds' tables, price, and the product's previous offer (a list per product, newest first).
 * Groups by (sku, store) are formed when the card is written (cardDoc), from the offers sorted, so
 * the order offers arrive in does not matter.
 */
export interface CardFold {
  fields: ProductFields;
  /** The product's newest offer in `rows` (-1: none yet). */
  last: number;
  tables: FoldTables;
}

/**
 * Offers as rows of OFFER_INTS integers in one growing Int32Array. A JavaScript array per product
 * grew with every offer: each copy outlived young collections, and millions of numbers sat in the
 * heap every full collection marks.
 */
interface OfferRows {
  ints: Int32Array;
  count: number;
}
const OFFER_INTS = 5;

/** A store as its offers show it (one entry per distinct set of values of a storeKey). */
interface StoreValues {
  storeKey: string;
  lane: CardGroup['lane'];
  checkoutMode: CardGroup['checkoutMode'];
  sellerCode: string | null;
  sellerFacet: string | null;
}

/** A sku's values as its offers show them. */
interface SkuValues {
  condition: string | null;
  language: string | null;
  finish: string | null;
  isSealed: boolean;
}

/** The distinct stores and sku values of the folds' offers: their strings are kept once. */
interface FoldTables {
  rows: OfferRows;
  stores: StoreValues[];
  storeIndex: Map<string, number[]>;
  skuValues: SkuValues[];
  skuIndex: Map<string | null, Map<string | null, Map<string | null, number>>>;
}

/** The folds of many products (a rebuild holds every fold). */
export interface CardFolds {
  products: Map<number, CardFold>;
  tables: FoldTables;
}

export function cardFolds(): CardFolds {
  return {
    products: new Map(),
    tables: { rows: { ints: new Int32Array(1024 * OFFER_INTS), count: 0 }, stores: [], storeIndex: new Map(), skuValues: [], skuIndex: new Map() },
  };
}

function storeOf(t: FoldTables, o: OfferDoc): number {
  let ids = t.storeIndex.get(o.storeKey);
  if (!ids) t.storeIndex.set(o.storeKey, (ids = []));
  for (const i of ids) {
    const s = t.stores[i]!;
    if (s.lane === o.lane && s.checkoutMode === o.checkoutMode && s.sellerCode === o.sellerCode && s.sellerFacet === o.sellerFacet) return i;
  }
  const { storeKey, lane, checkoutMode, sellerCode, sellerFacet } = o;
  ids.push(t.stores.length);
  return t.stores.push({ storeKey, lane, checkoutMode, sellerCode, sellerFacet }) - 1;
}

function skuValuesOf(t: FoldTables, o: OfferDoc): number {
  let byLanguage = t.skuIndex.get(o.condition);
  if (!byLanguage) t.skuIndex.set(o.condition, (byLanguage = new Map()));
  let byFinish = byLanguage.get(o.language);
  if (!byFinish) byLanguage.set(o.language, (byFinish = new Map()));
  const got = byFinish.get(o.finish);
  // isSealed is a function of condition (SEALED_CONDITION), so the three values key it.
  if (got !== undefined && t.skuValues[got]!.isSealed === o.isSealed) return got;
  const { condition, language, finish, isSealed } = o;
  const i = t.skuValues.push({ condition, language, finish, isSealed }) - 1;
  if (got === undefined) byFinish.set(o.finish, i);
  return i;
}

/** Adds one offer document to its product's fold; not-shown offers count for nothing. */
export function foldOffer(folds: CardFolds, o: OfferDoc): void {
  if (!o.shown) return;
  const t = folds.tables;
  let f = folds.products.get(o.productId);
  if (!f) {
    const { sortKey, nameTerms, category, set, rarity, collectorNumber, item } = o;
    f = { fields: { sortKey, nameTerms, category, set, rarity, collectorNumber, item }, last: -1, tables: t };
    folds.products.set(o.productId, f);
  }
  const rows = t.rows;
  if ((rows.count + 1) * OFFER_INTS > rows.ints.length) {
    const grown = new Int32Array(rows.ints.length * 2);
    grown.set(rows.ints);
    rows.ints = grown;
  }
  const at = rows.count * OFFER_INTS;
  const ints = rows.ints;
  ints[at] = o.skuId;
  ints[at + 1] = storeOf(t, o);
  ints[at + 2] = skuValuesOf(t, o);
  ints[at + 3] = o.price;
  ints[at + 4] = f.last;
  f.last = rows.count++;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The distinct seller codes of a card's groups, sorted (so a recomputed card is byte-identical to
 * the one it replaces, and to a rebuild's). A card has few: a scan, and a set past a few dozen groups.
 */
function sellerCodes(groups: readonly CardGroup[]): string[] {
  if (groups.length > 32) {
    const codes = new Set<string>();
    for (const g of groups) if (g.sellerCode !== null) codes.add(g.sellerCode);
    return [...codes].sort();
  }
  const codes: string[] = [];
  for (const g of groups) if (g.sellerCode !== null && !codes.includes(g.sellerCode)) codes.push(g.sellerCode);
  return sortByCodeUnits(codes);
}

/**
 * The fold's (sku, store) groups sorted by skuId then storeKey: the lowest price of each, the other
 * values from its first offer to arrive (offers of one group agree on them within one snapshot).
 */
function foldGroups(f: CardFold): CardGroup[] {
  const { tables } = f;
  const offers = tables.rows.ints;
  // Row starts of the product's offers (a row's number is its arrival order: the sort's last key).
  const order: number[] = [];
  for (let i = f.last; i >= 0; i = offers[i * OFFER_INTS + 4]!) order.push(i * OFFER_INTS);
  const storeKey = (at: number) => tables.stores[offers[at + 1]!]!.storeKey;
  order.sort((a, b) => offers[a]! - offers[b]! || byCodeUnits(storeKey(a), storeKey(b)) || a - b);
  const groups: CardGroup[] = [];
  let last: CardGroup | undefined;
  for (const at of order) {
    const skuId = offers[at]!;
    const store = tables.stores[offers[at + 1]!]!;
    const price = offers[at + 3]!;
    if (last && last.skuId === skuId && last.storeKey === store.storeKey) {
      if (price < last.price) last.price = price;
      continue;
    }
    const sku = tables.skuValues[offers[at + 2]!]!;
    last = {
      skuId,
      storeKey: store.storeKey,
      lane: store.lane,
      checkoutMode: store.checkoutMode,
      sellerCode: store.sellerCode,
      sellerFacet: store.sellerFacet,
      condition: sku.condition,
      language: sku.language,
      finish: sku.finish,
      isSealed: sku.isSealed,
      price,
    };
    groups.push(last);
  }
  return groups;
}

export function cardDoc(f: CardFold): CardDoc {
  const { sortKey, nameTerms, category, set, rarity, collectorNumber, item } = f.fields;
  const groups = foldGroups(f);
  const { values, fields, tuples } = cardValues(groups);
  // Fields by name rather than spread (the same keys in the same order: foldOffer makes every fold's fields).
  const doc: CardDoc = {
    docType: 'card',
    productId: item.productId,
    sortKey,
    nameTerms,
    category,
    set,
    rarity,
    collectorNumber,
    condition: values[0]!,
    language: values[1]!,
    finish: values[2]!,
    sellerCode: sellerCodes(groups),
    sellerFacet: values[4]!,
    checkoutMode: values[3]! as CardGroup['checkoutMode'][],
    card: searchItem(item, matchingOffers(groups)),
    groups,
  };
  for (let i = 0; i < fields.length; i++) doc[fields[i] as `x_${string}`] = tuples[i]!;
  return doc;
}

/** What a product's groups (all of them, or those matching a search's offer-level filters) add up to. */
export function matchingOffers(groups: readonly CardGroup[]): MatchingOffers {
  let fromPrice = Infinity;
  let isSealed = false;
  let hasNative = false;
  const stores = new Set<string>();
  for (const g of groups) {
    if (g.price < fromPrice) fromPrice = g.price;
    stores.add(g.storeKey);
    isSealed ||= g.isSealed;
    hasNative ||= g.lane === 'native';
  }
  return { fromPrice, sellerCount: stores.size, isSealed, hasNative };
}
