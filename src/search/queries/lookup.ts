import type { CartLine, LookupBody } from '../../contract/buyer.js';
import { docId, type OfferDoc, type SellerDoc, type SkuDoc } from '../documents/model.js';
import { FULFILLMENT_OBLIGATION, disclosuresFor } from '../../contract/policy.js';

// Cart line lookup. A line needs its native offer (price, stock), its catalog sku (product and sku
// display) and its seller. A native offer document already carries its sku's display fields, so
// the first round asks only for offers and sellers; the sku documents are asked for only for the
// pairs without an offer document (never listed, deleted, unmatched). Loading a document's source
// is most of a lookup's cost in the cluster, and a listed cart line then costs one document, not two.

/** What the first round reads of an offer document: the line's price and stock, and what skuCart needs. */
export const OFFER_LINE_FIELDS = [
  'docType',
  'skuId',
  'item.productId',
  'item.name',
  'item.set',
  'item.imageUrl',
  'item.category',
  'condition',
  'language',
  'finish',
  'offer.price',
  'offer.available',
] as const;

/** What is read of a seller document, and of a sku document in the second round. */
export const SELLER_LINE_FIELDS = ['docType', 'sellerId', 'cartSeller'] as const;
export const SKU_LINE_FIELDS = ['docType', 'skuId', 'cart'] as const;

export type OfferLineSource = Pick<OfferDoc, 'docType' | 'skuId' | 'condition' | 'language' | 'finish'> & {
  item: Pick<OfferDoc['item'], 'productId' | 'name' | 'set' | 'imageUrl' | 'category'>;
  offer: Pick<OfferDoc['offer'], 'price' | 'available'>;
};

/** The first round's ids: each pair's offer and each seller, once. */
export function offerAndSellerIds(lines: LookupBody['lines']): string[] {
  const ids = new Set<string>();
  for (const l of lines) ids.add(docId.native(l.sellerId, l.skuId));
  for (const l of lines) ids.add(docId.seller(l.sellerId));
  return [...ids];
}

/** The second round's ids: the skus that no offer document of the first round described. */
export function missingSkuIds(lines: LookupBody['lines'], skus: ReadonlyMap<number, unknown>): string[] {
  const ids = new Set<string>();
  for (const l of lines) if (!skus.has(l.skuId)) ids.add(docId.sku(l.skuId));
  return [...ids];
}

/** Small carts stay one request; larger ones split in two halves, answered by two threads at once. */
export const SPLIT_LOOKUP_AT = 60;

export function lookupIdParts(ids: readonly string[]): string[][] {
  if (ids.length < SPLIT_LOOKUP_AT) return [[...ids]];
  const half = Math.ceil(ids.length / 2);
  return [ids.slice(0, half), ids.slice(half)];
}

export interface LookupDocs {
  offers: Map<string, { offer: Pick<OfferDoc['offer'], 'price' | 'available'> }>;
  skus: Map<number, Pick<SkuDoc, 'cart'>>;
  sellers: Map<number, Pick<SellerDoc, 'cartSeller'>>;
}

/** One line per requested pair, in request order; unknown sellers or skus give nulls, never errors. */
export function cartLines(lines: LookupBody['lines'], docs: LookupDocs): CartLine[] {
  return lines.map(({ sellerId, skuId }) => {
    const seller = docs.sellers.get(sellerId)?.cartSeller;
    const sku = docs.skus.get(skuId)?.cart;
    const offer = sku && seller ? docs.offers.get(docId.native(sellerId, skuId))?.offer : undefined;
    const inStock = offer !== undefined && offer.available > 0;
    const line: CartLine = {
      sellerId,
      skuId,
      seller: seller ? { name: seller.name } : null,
      product: sku ? sku.product : null,
      sku: sku ? sku.sku : null,
      currentPrice: inStock ? offer.price : null,
      available: inStock ? offer.available : 0,
    };
    if (seller) {
      if (!seller.browseEligible) {
        line.sellerUnavailable = { sellerId, reason: seller.vacation ? 'SELLER_ON_VACATION' : 'SELLER_UNAVAILABLE' };
        line.policy = {
          status: 'blocked',
          error: {
            code: 'CHECKOUT_SELLER_UNAVAILABLE',
            message: seller.vacation ? 'The seller is on vacation' : 'The seller cannot take orders right now',
            action: 'REMOVE_LINE_OR_WAIT',
          },
        };
      } else {
        line.policy = { status: 'eligible', error: null };
      }
    }
    if (sku) {
      line.disclosures = disclosuresFor(sku.category);
      line.fulfillmentObligation = FULFILLMENT_OBLIGATION;
    }
    return line;
  });
}
