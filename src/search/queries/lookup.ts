import type { CartLine, LookupBody } from '../../contract/buyer.js';
import { docId, parseDocId, type OfferDoc, type SellerDoc, type SkuDoc } from '../documents/model.js';
import { FULFILLMENT_OBLIGATION, disclosuresFor } from '../../contract/policy.js';

// Cart line lookup: every pair needs its native offer, its catalog sku and its seller; all three
// are documents with known ids, so one _mget answers up to 500 lines.

export function lookupIds(lines: LookupBody['lines']): string[] {
  const ids = new Set<string>();
  for (const l of lines) {
    ids.add(docId.native(l.sellerId, l.skuId));
    ids.add(docId.sku(l.skuId));
    ids.add(docId.seller(l.sellerId));
  }
  return [...ids];
}

/** Small carts stay one request; larger ones split into the offers and the rest (index-reads.ts). */
export const SPLIT_LOOKUP_AT = 60;

export function lookupIdParts(ids: readonly string[]): string[][] {
  if (ids.length < SPLIT_LOOKUP_AT) return [[...ids]];
  const isOffer = (id: string) => parseDocId(id)?.type === 'native';
  const offers = ids.filter(isOffer);
  const rest = ids.filter((id) => !isOffer(id));
  return [offers, rest].filter((p) => p.length > 0);
}

export interface LookupDocs {
  offers: Map<string, Pick<OfferDoc, 'offer'>>;
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
