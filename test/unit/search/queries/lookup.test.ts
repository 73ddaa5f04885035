import { describe, expect, it } from 'vitest';
import { nativeOfferDoc, skuCart, skuDoc } from '../../../../src/search/documents/builders.js';
import {
  OFFER_LINE_FIELDS,
  SPLIT_LOOKUP_AT,
  lookupIdParts,
  missingSkuIds,
  offerAndSellerIds,
  type OfferLineSource,
} from '../../../../src/search/queries/lookup.js';
import { product, seller, sku } from '../../../support/offer-facts.js';

/** What `_source_includes` leaves of a document: only the listed dotted paths. */
function pick(doc: object, fields: readonly string[]): OfferLineSource {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const [head, tail] = f.split('.') as [string, string | undefined];
    const v = (doc as Record<string, unknown>)[head];
    if (tail === undefined) out[head] = v;
    else out[head] = { ...(out[head] as object), [tail]: (v as Record<string, unknown>)[tail] };
  }
  return out as unknown as OfferLineSource;
}

describe('cart lookup ids', () => {
  it('the first round names each pair’s offer and each seller once, and no sku', () => {
    expect(
      offerAndSellerIds([
        { sellerId: 1, skuId: 10 },
        { sellerId: 1, skuId: 11 },
        { sellerId: 2, skuId: 10 },
        { sellerId: 1, skuId: 10 },
      ]),
    ).toEqual(['n:1:10', 'n:1:11', 'n:2:10', 's:1', 's:2']);
  });

  it('the second round names only the skus no offer document described, once each', () => {
    const lines = [
      { sellerId: 1, skuId: 10 },
      { sellerId: 2, skuId: 11 },
      { sellerId: 3, skuId: 11 },
      { sellerId: 3, skuId: 12 },
    ];
    expect(missingSkuIds(lines, new Map([[10, {}]]))).toEqual(['k:11', 'k:12']);
    expect(missingSkuIds(lines, new Map([10, 11, 12].map((k) => [k, {}])))).toEqual([]);
  });

  it('a small cart is one request; a large one splits in two halves, every id exactly once', () => {
    const small = offerAndSellerIds([{ sellerId: 1, skuId: 10 }]);
    expect(lookupIdParts(small)).toEqual([small]);
    const ids = offerAndSellerIds(Array.from({ length: 500 }, (_, i) => ({ sellerId: 1 + (i % 7), skuId: 1000 + i })));
    expect(ids.length).toBeGreaterThanOrEqual(SPLIT_LOOKUP_AT);
    const parts = lookupIdParts(ids);
    expect(parts.map((p) => p.length)).toEqual([254, 253]);
    expect(parts.flat()).toEqual(ids);
  });
});

describe('a sku’s cart block read from its offer document', () => {
  it('equals its sku document’s, with the product known and unknown: the fields read are enough', () => {
    for (const p of [product(), product({ name: null, set: null, imageUrl: null, category: null }), undefined]) {
      const offer = nativeOfferDoc({ sellerId: 3, skuId: 70, price: 10, available: 1 }, sku(), seller(), p, false);
      const read = pick(offer, OFFER_LINE_FIELDS);
      expect(skuCart(read.item, read)).toEqual(skuDoc(sku(), p).cart);
    }
  });
});
