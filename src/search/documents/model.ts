import type { Offer, Product, SearchItem } from '../../contract/buyer.js';
import type { ProductFacts } from '../../db/offer-source.js';
import type { CardGroup } from './offer-groups.js';

// The read model: one Elasticsearch index holds five document types (docs/search-design.md).
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
// return them without reassembly. Builders: builders.ts (offers, products, skus, sellers) and
// card-fold.ts (cards).

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
  /** The product's name as written: the suggestions' distinct names (a terms aggregation). */
  nameKey: string | null;
  /** The name terms' prefixes (name-grams.ts): suggestions' typo-tolerant prefix matching. */
  nameGrams: string[];
  condition: string[];
  language: string[];
  finish: string[];
  sellerCode: string[];
  sellerFacet: string[];
  checkoutMode: CardGroup['checkoutMode'][];
  /** The search item when no offer-level filter applies (every group matches), but its price. */
  card: CardItem;
  /** Nested: one per shown (sku, store), sorted by skuId then storeKey. */
  groups: CardGroup[];
  /** Each group's key (offer-groups.ts groupKey), in `groups` order: stored apart, for the indexer's test of a card. */
  groupKeys: string[];
  /** A hash of the product fields the card shows (productKey in card-fold.ts): stored apart, likewise. */
  productKey: string;
  /** Combination keys (offer-groups.ts): x_cl, x_cls, ... -> sorted distinct tuples; empty ones left out. */
  [combo: `x_${string}`]: string[];
}

/**
 * A search item without `fromPrice`: a card holds only what changes when its product's set of
 * shown (sku, store) groups does, so a repricing leaves every card as it is. Search adds the lowest
 * matching offer price at read time (queries/from-prices.ts).
 */
export type CardItem = Omit<SearchItem, 'fromPrice'>;

export type IndexDoc = OfferDoc | ProductDoc | SkuDoc | SellerDoc | CardDoc;

/** What a product's matching (sku, store) groups add up to, but their price. */
export interface MatchingGroups {
  sellerCount: number;
  isSealed: boolean;
  hasNative: boolean;
}

/** What search knows of a product's matching offers, whichever store aggregated them. */
export interface MatchingOffers extends MatchingGroups {
  fromPrice: number;
}

export const docId = {
  native: (sellerId: number, skuId: number) => `n:${sellerId}:${skuId}`,
  handoff: (variantId: number) => `h:${variantId}`,
  product: (productId: number) => `p:${productId}`,
  sku: (skuId: number) => `k:${skuId}`,
  seller: (sellerId: number) => `s:${sellerId}`,
  card: (productId: number) => `c:${productId}`,
};

/** A document id taken apart: what `docId` built it from. */
export type ParsedDocId =
  | { type: 'native'; sellerId: number; skuId: number }
  | { type: 'handoff'; variantId: number }
  | { type: 'product'; productId: number }
  | { type: 'sku'; skuId: number }
  | { type: 'seller'; sellerId: number }
  | { type: 'card'; productId: number };

const ID_NUMBER = /^-?(?:0|[1-9]\d*)$/;
const idNumber = (s: string | undefined): number | null => (s !== undefined && ID_NUMBER.test(s) ? Number(s) : null);

/** The inverse of `docId`; null for an id it cannot have built. */
export function parseDocId(id: string): ParsedDocId | null {
  const [prefix, a, b, ...rest] = id.split(':');
  if (rest.length > 0) return null;
  const x = idNumber(a);
  if (x === null) return null;
  if (prefix === 'n') {
    const y = idNumber(b);
    return y === null ? null : { type: 'native', sellerId: x, skuId: y };
  }
  if (b !== undefined) return null;
  switch (prefix) {
    case 'h':
      return { type: 'handoff', variantId: x };
    case 'p':
      return { type: 'product', productId: x };
    case 'k':
      return { type: 'sku', skuId: x };
    case 's':
      return { type: 'seller', sellerId: x };
    case 'c':
      return { type: 'card', productId: x };
    default:
      return null;
  }
}
