import { describe, expect, it } from 'vitest';
import { handoffOfferDoc, nativeOfferDoc, productFields } from '../../../src/search/documents/builders.js';
import { offerDocJson, offerLayout } from '../../../indexer/offer-json.js';
import { product, seller, sku } from '../../support/offer-facts.js';

describe('offerDocJson', () => {
  it('writes exactly JSON.stringify of every native offer document, whatever its values', () => {
    const shared = product();
    const cases = [
      nativeOfferDoc({ sellerId: 3, skuId: 70, price: 1999, available: 4 }, sku(), seller(), shared, false),
      // The same product facts again: its fields and item come from the memo.
      nativeOfferDoc({ sellerId: 4, skuId: 71, price: 0.5, available: 0 }, sku({ skuId: 71 }), seller({ sellerId: 4 }), shared, true),
      nativeOfferDoc(
        { sellerId: 5, skuId: 72, price: 12, available: 1 },
        sku({ skuId: 72, condition: 'Unopened', language: null, finish: null }),
        seller({ sellerId: 5, browseEligible: false, poBoxDelivery: 'seller_declines' }),
        product({ productId: 8, name: null, category: 'Pokémon', set: null, rarity: null, collectorNumber: null, imageUrl: null }),
        false,
      ),
      nativeOfferDoc({ sellerId: 6, skuId: 73, price: 5, available: 2 }, sku({ skuId: 73, productId: 9 }), seller({ sellerId: 6 }), undefined, false),
    ];
    for (const d of cases) expect(offerDocJson(d)).toBe(JSON.stringify(d));
  });

  it('does not take a memoized product part for a document whose product fields differ', () => {
    const p = product();
    const d = nativeOfferDoc({ sellerId: 3, skuId: 70, price: 10, available: 1 }, sku(), seller(), p, false);
    offerDocJson(d);
    const changed = { ...d, nameTerms: 'other terms', item: productFields(7, p).item };
    expect(offerDocJson(changed)).toBe(JSON.stringify(changed));
  });

  it('leaves handoff offers to JSON.stringify', () => {
    const d = handoffOfferDoc(
      { variantId: 9, storeSlug: 'north', skuId: 70, productId: 7, price: 300, quantity: 2 },
      sku(),
      { storeSlug: 'north', storeName: 'North', sellerCode: null, active: true, reviewSum: 9, reviewCount: 2 },
      product(),
    );
    expect(offerDocJson(d)).toBe(JSON.stringify(d));
  });
});

describe('offerLayout', () => {
  const d = nativeOfferDoc({ sellerId: 3, skuId: 70, price: 10, available: 1 }, sku(), seller(), product(), false);

  it("splits a native offer document's own keys around its product's fields and the shared offer tail", () => {
    expect(offerLayout(d)).toEqual({
      head: Object.keys(d).slice(0, Object.keys(d).indexOf('sortKey')),
      product: ['sortKey', 'nameTerms', 'category', 'set', 'rarity', 'collectorNumber', 'item'],
      offer: Object.keys(d.offer).filter((k) => k !== 'disclosures' && k !== 'fulfillmentObligation'),
    });
    expect(offerLayout(d).head.at(-1)).toBe('checkoutMode');
  });

  it('refuses a document whose keys no longer fit the pieces it writes', () => {
    const { offer, ...rest } = d;
    expect(() => offerLayout({ offer, ...rest })).toThrow(/no longer fit/);
    const { item, ...noItem } = d;
    expect(() => offerLayout({ ...noItem, item, extra: 1 } as never)).toThrow(/no longer fit/);
    const { disclosures, ...offerRest } = d.offer;
    expect(() => offerLayout({ ...d, offer: { ...offerRest, disclosures } as never })).toThrow(/no longer fit/);
  });
});
