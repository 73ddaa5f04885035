import type { Offer, SearchItem } from '../../contract/buyer.js';
import { FULFILLMENT_OBLIGATION, SEALED_CONDITION, disclosuresFor, reviewScore } from '../../contract/policy.js';
import type {
  HandoffStoreFacts,
  ListingFacts,
  NativeRow,
  ProductFacts,
  SellerCounts,
  SellerFacts,
  SkuFacts,
  VariantFacts,
} from '../../db/offer-source.js';
import { productSortKey, terms } from '../text.js';
import {
  docId,
  type CardItem,
  type MatchingGroups,
  type MatchingOffers,
  type OfferDoc,
  type ProductDoc,
  type ProductFields,
  type SellerDoc,
  type SellerStats,
  type SkuDoc,
  type StoredOffer,
} from './model.js';
import type { CardGroup } from './offer-groups.js';

// The pure document builders: source facts (src/db/offer-source.ts) in, documents out. The
// indexer and the PostgreSQL fallback (src/search/pg-reads.ts) build with the same functions, so
// an answer is the same whichever store gave it.

// A product's fields are the same for each of its offers: built once per facts object (a
// rebuild's snapshot keeps one per product), so its offers share them and `item` (the indexer's
// JSON writer writes a shared item's bytes once: indexer/offer-json.ts).
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

/** An offer document's own fields: all but its product's (ProductFields) and the stored offer. */
type OfferHead = Omit<OfferDoc, keyof ProductFields | 'offer'>;

/**
 * The offer document of either lane: its own fields, then its product's block, then the stored
 * offer. The one literal that writes them, so the key order is one (the indexer's JSON writer takes
 * its layout from it: indexer/offer-json.ts), field by field: a spread after other keys copies slowly.
 */
function offerDoc(h: OfferHead, pf: ProductFields, offer: StoredOffer): OfferDoc {
  return {
    docType: h.docType,
    shown: h.shown,
    lane: h.lane,
    productId: h.productId,
    skuId: h.skuId,
    sellerId: h.sellerId,
    ownerId: h.ownerId,
    laneOrder: h.laneOrder,
    storeKey: h.storeKey,
    sellerCode: h.sellerCode,
    sellerFacet: h.sellerFacet,
    condition: h.condition,
    language: h.language,
    finish: h.finish,
    isSealed: h.isSealed,
    price: h.price,
    available: h.available,
    checkoutMode: h.checkoutMode,
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

/** A live, matched native listing. Not-shown offers are still indexed for the cart lookup. */
export function nativeOfferDoc(l: ListingFacts, sku: SkuFacts, seller: SellerFacts, product: ProductFacts | undefined, poBoxSuspended: boolean): OfferDoc {
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
  return offerDoc(
    {
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
    },
    pf,
    offer,
  );
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
  return offerDoc(
    {
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
    },
    pf,
    offer,
  );
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

/**
 * What a cart line shows of its product and sku. The sku document holds it; a native offer document
 * carries the same product item and sku fields, so the cart lookup builds it from a listed line's
 * offer instead of reading the sku document as well (index-reads.ts).
 */
export function skuCart(
  item: Pick<ProductFields['item'], 'productId' | 'name' | 'set' | 'imageUrl' | 'category'>,
  sku: Pick<SkuFacts, 'condition' | 'language' | 'finish'>,
): SkuDoc['cart'] {
  return {
    product: { productId: item.productId, name: item.name, set: item.set, image: item.imageUrl },
    sku: { condition: sku.condition, language: sku.language, finish: sku.finish },
    category: item.category,
  };
}

export function skuDoc(sku: SkuFacts, p: ProductFacts | undefined): SkuDoc {
  return { docType: 'sku', skuId: sku.skuId, productId: sku.productId, cart: skuCart(productFields(sku.productId, p).item, sku) };
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

/** What a product's groups (all of them, or those matching a search's offer-level filters) add up to. */
export function matchingGroups(groups: readonly CardGroup[]): MatchingGroups {
  let isSealed = false;
  let hasNative = false;
  const stores = new Set<string>();
  for (const g of groups) {
    stores.add(g.storeKey);
    isSealed ||= g.isSealed;
    hasNative ||= g.lane === 'native';
  }
  return { sellerCount: stores.size, isSealed, hasNative };
}

/** A card's search item: searchItem's fields, in its order, but fromPrice (read from the offers). */
export function cardItem(item: ProductFields['item'], m: MatchingGroups): CardItem {
  const { fromPrice: _price, ...rest } = searchItem(item, { ...m, fromPrice: 0 });
  return rest;
}

/** A card's item with its lowest matching price, in the contract's field order (as searchItem). */
export function pricedItem(c: CardItem, fromPrice: number): SearchItem {
  return {
    productId: c.productId,
    name: c.name,
    set: c.set,
    category: c.category,
    rarity: c.rarity,
    collectorNumber: c.collectorNumber,
    imageUrl: c.imageUrl,
    isSealed: c.isSealed,
    fromPrice,
    sellerCount: c.sellerCount,
    disclosures: c.disclosures,
    fulfillmentObligation: c.fulfillmentObligation,
  };
}
