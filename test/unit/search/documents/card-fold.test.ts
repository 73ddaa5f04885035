import { describe, expect, it } from 'vitest';
import { handoffOfferDoc, nativeOfferDoc } from '../../../../src/search/documents/builders.js';
import { cardDoc, cardFolds, foldOffer } from '../../../../src/search/documents/card-fold.js';
import type { SellerFacts } from '../../../../src/db/offer-source.js';

describe('product card fold', () => {
  const seller = (id: number, code: string, eligible = true): SellerFacts => ({
    sellerId: id,
    sellerCode: code,
    storeName: `${code} store`,
    vacation: false,
    browseEligible: eligible,
    poBoxDelivery: 'available',
  });
  const product = {
    productId: 5,
    name: 'Black Lotus',
    set: 'Alpha',
    category: 'Magic: The Gathering',
    rarity: 'Rare',
    collectorNumber: '232',
    imageUrl: null,
    details: [],
  };
  const sku = (skuId: number, condition: string | null, language: string | null) => ({ skuId, productId: 5, condition, language, finish: null });

  it('folds only shown offers: distinct stores, sealed and native flags, sorted distinct values; no price', () => {
    const folds = cardFolds();
    foldOffer(
      folds,
      nativeOfferDoc({ sellerId: 1, skuId: 10, price: 900, available: 1 }, sku(10, 'Near Mint', 'English'), seller(1, 'b'), product, false),
    );
    foldOffer(folds, nativeOfferDoc({ sellerId: 1, skuId: 11, price: 700, available: 2 }, sku(11, 'Damaged', 'English'), seller(1, 'b'), product, false));
    // Not shown: sold out, and a seller who cannot be browsed.
    foldOffer(
      folds,
      nativeOfferDoc({ sellerId: 2, skuId: 10, price: 100, available: 0 }, sku(10, 'Near Mint', 'Deutsch'), seller(2, 'c'), product, false),
    );
    foldOffer(
      folds,
      nativeOfferDoc({ sellerId: 3, skuId: 10, price: 100, available: 5 }, sku(10, 'Near Mint', 'Deutsch'), seller(3, 'd', false), product, false),
    );
    foldOffer(
      folds,
      handoffOfferDoc(
        { variantId: 9, storeSlug: 'north', skuId: 12, productId: 5, price: 800, quantity: 1 },
        sku(12, 'Unopened', null),
        { storeSlug: 'north', storeName: 'North', sellerCode: 'a', active: true, reviewSum: 0, reviewCount: 0 },
        product,
      ),
    );
    const card = cardDoc(folds.products.get(5)!);
    expect(card).toMatchObject({
      docType: 'card',
      productId: 5,
      category: 'Magic: The Gathering',
      set: 'Alpha',
      condition: ['Damaged', 'Near Mint', 'Unopened'],
      language: ['English'],
      finish: [],
      sellerFacet: ['a\u0000North', 'b\u0000b store'],
      card: { productId: 5, name: 'Black Lotus', sellerCount: 2, isSealed: true },
    });
    expect(card.card.disclosures).not.toBeNull();
    // A repricing must leave the card as it is: its price comes from the offers at read time.
    expect(card.card).not.toHaveProperty('fromPrice');
    expect(card.groups.every((g) => !('price' in g))).toBe(true);
    expect(card).not.toHaveProperty('item');
  });

  it('gives no fold for a product without a shown offer, and no disclosures for a handoff-only product', () => {
    const folds = cardFolds();
    foldOffer(
      folds,
      nativeOfferDoc({ sellerId: 1, skuId: 10, price: 900, available: 0 }, sku(10, 'Near Mint', 'English'), seller(1, 'b'), product, false),
    );
    expect(folds.products.size).toBe(0);
    foldOffer(
      folds,
      handoffOfferDoc(
        { variantId: 9, storeSlug: 'north', skuId: 12, productId: 5, price: 800, quantity: 1 },
        undefined,
        { storeSlug: 'north', storeName: 'North', sellerCode: null, active: true, reviewSum: 0, reviewCount: 0 },
        product,
      ),
    );
    expect(cardDoc(folds.products.get(5)!)).toMatchObject({
      sellerFacet: [],
      condition: [],
      card: { disclosures: null, fulfillmentObligation: null, isSealed: false },
    });
  });

  it('keeps one group per shown (sku, store), and every pair and triple of its values', () => {
    const offers = [
      nativeOfferDoc({ sellerId: 1, skuId: 10, price: 900, available: 1 }, sku(10, 'Near Mint', 'English'), seller(1, 'b'), product, false),
      nativeOfferDoc({ sellerId: 2, skuId: 10, price: 600, available: 1 }, sku(10, 'Near Mint', 'English'), seller(2, 'c'), product, false),
      nativeOfferDoc({ sellerId: 1, skuId: 11, price: 700, available: 2 }, sku(11, 'Damaged', null), seller(1, 'b'), product, false),
      handoffOfferDoc(
        { variantId: 9, storeSlug: 'north', skuId: 10, productId: 5, price: 800, quantity: 1 },
        sku(10, 'Near Mint', 'English'),
        { storeSlug: 'north', storeName: 'North', sellerCode: 'a', active: true, reviewSum: 0, reviewCount: 0 },
        product,
      ),
      // a second variant of the same store and sku: same group
      handoffOfferDoc(
        { variantId: 10, storeSlug: 'north', skuId: 10, productId: 5, price: 750, quantity: 1 },
        sku(10, 'Near Mint', 'English'),
        { storeSlug: 'north', storeName: 'North', sellerCode: 'a', active: true, reviewSum: 0, reviewCount: 0 },
        product,
      ),
    ];
    const folds = cardFolds();
    for (const o of offers) foldOffer(folds, o);
    const card = cardDoc(folds.products.get(5)!);
    expect(card.groups.map((g) => [g.skuId, g.storeKey, g.checkoutMode])).toEqual([
      [10, 'h:north', 'manual'],
      [10, 'n:1', 'express'],
      [10, 'n:2', 'express'],
      [11, 'n:1', 'express'],
    ]);
    expect(card).toMatchObject({ sellerCode: ['a', 'b', 'c'], checkoutMode: ['express', 'manual'] });
    const Z = '\u0000';
    expect(card.x_cl).toEqual([`Near Mint${Z}English`]);
    expect(card.x_cm).toEqual([`Damaged${Z}express`, `Near Mint${Z}express`, `Near Mint${Z}manual`]);
    expect(card.x_cms).toEqual([
      `Damaged${Z}express${Z}b${Z}b store`,
      `Near Mint${Z}express${Z}b${Z}b store`,
      `Near Mint${Z}express${Z}c${Z}c store`,
      `Near Mint${Z}manual${Z}a${Z}North`,
    ]);
    expect(card.x_lms).toEqual([`English${Z}express${Z}b${Z}b store`, `English${Z}express${Z}c${Z}c store`, `English${Z}manual${Z}a${Z}North`]);
    // no finish anywhere: no tuple with one, and no empty field
    expect(
      Object.keys(card)
        .filter((k) => k.startsWith('x_'))
        .sort(),
    ).toEqual(['x_cl', 'x_clm', 'x_cls', 'x_cm', 'x_cms', 'x_cs', 'x_lm', 'x_lms', 'x_ls', 'x_ms']);
    expect(card.card).toMatchObject({ sellerCount: 3 });

    // Whatever order the offers arrive in, the same bytes (the live indexer's card equals the rebuild's).
    const reversed = cardFolds();
    for (const o of [...offers].reverse()) foldOffer(reversed, o);
    expect(JSON.stringify(cardDoc(reversed.products.get(5)!))).toBe(JSON.stringify(card));
  });
});
