import { describe, expect, it } from 'vitest';
import { searchQuerySchema } from '../../src/contract/buyer.js';
import { cardSearchBody, cardSearchPage, usesCards } from '../../src/search/queries/card-search.js';
import { cardDoc, cardFolds, foldOffer, handoffOfferDoc, nativeOfferDoc } from '../../src/search/documents.js';
import type { SellerFacts } from '../../src/db/offer-source.js';

const q = (raw: Record<string, string | string[]>) => searchQuerySchema.parse(raw);

describe('usesCards', () => {
  it('takes cards for keyword and product-level filters, offers for any offer-level filter', () => {
    expect(usesCards(q({}))).toBe(true);
    expect(usesCards(q({ keyword: 'bolt', category: 'Magic', set: 'Alpha', rarity: 'Rare', collectorNumber: ['1', '2'] }))).toBe(true);
    expect(usesCards(q({ checkoutMode: 'any' }))).toBe(true);
    const offerLevel: Record<string, string>[] = [
      { condition: 'Near Mint' },
      { language: 'English' },
      { finish: 'Foil' },
      { sellerCode: 'maple' },
      { checkoutMode: 'express' },
      { checkoutMode: 'manual' },
    ];
    for (const raw of offerLevel) {
      expect(usesCards(q(raw)), JSON.stringify(raw)).toBe(false);
    }
  });
});

describe('cardSearchBody', () => {
  it('pages cards by sort key with one extra hit and search_after', () => {
    const body = cardSearchBody(q({ limit: '12', sort: 'name_desc' }), 'bolt\u000000000101');
    expect(body).toMatchObject({ size: 13, sort: [{ sortKey: { order: 'desc' } }], search_after: ['bolt\u000000000101'], _source: ['card'] });
    expect(body.query).toEqual({ bool: { filter: [{ term: { docType: 'card' } }] } });
    expect(body).not.toHaveProperty('post_filter');
    expect(cardSearchBody(q({}), null)).not.toHaveProperty('search_after');
  });

  it('keeps keyword terms in the query and facet selections out of their own facet (disjunctive)', () => {
    const body = cardSearchBody(q({ keyword: 'Lightning Bölt', category: 'Magic', set: 'Alpha' }), null) as {
      query: unknown;
      post_filter: unknown;
      aggs: Record<string, { filter: unknown; aggs: { values: { terms: { field: string; order: unknown } } } }>;
    };
    expect(body.query).toEqual({
      bool: { filter: [{ term: { docType: 'card' } }, { term: { nameTerms: 'lightning' } }, { term: { nameTerms: 'bolt' } }] },
    });
    expect(body.post_filter).toEqual({ bool: { filter: [{ term: { category: 'Magic' } }, { term: { set: 'Alpha' } }] } });
    expect(body.aggs.facet_category!.filter).toEqual({ bool: { filter: [{ term: { set: 'Alpha' } }] } });
    expect(body.aggs.facet_set!.filter).toEqual({ bool: { filter: [{ term: { category: 'Magic' } }] } });
    expect(body.aggs.facet_condition!.filter).toEqual({ bool: { filter: [{ term: { category: 'Magic' } }, { term: { set: 'Alpha' } }] } });
    expect(body.aggs.facet_seller!.aggs.values.terms).toMatchObject({ field: 'sellerFacet', order: [{ _count: 'desc' }, { _key: 'asc' }] });
  });
});

describe('cardSearchPage', () => {
  const aggs = (buckets: { key: string; doc_count: number }[]) => ({ values: { buckets } });
  const empty = {
    facet_category: aggs([]),
    facet_set: aggs([]),
    facet_rarity: aggs([]),
    facet_condition: aggs([]),
    facet_language: aggs([]),
    facet_finish: aggs([]),
    facet_collectorNumber: aggs([]),
  };

  it('gives a next key only when the extra hit came back, and splits seller facet keys', () => {
    const hit = (id: number) => ({ _source: { card: { productId: id } }, sort: [`k${id}`] });
    const page = cardSearchPage(
      { hits: { hits: [hit(1), hit(2), hit(3)] }, aggregations: { ...empty, facet_seller: aggs([{ key: 'maple\u0000Maple Cards', doc_count: 4 }]) } },
      2,
    );
    expect(page.items.map((i) => i.productId)).toEqual([1, 2]);
    expect(page.nextAfter).toBe('k2');
    expect(page.facets.seller).toEqual([{ sellerCode: 'maple', storeName: 'Maple Cards', count: 4 }]);
    const last = cardSearchPage({ hits: { hits: [hit(1), hit(2)] }, aggregations: { ...empty, facet_seller: aggs([]) } }, 2);
    expect(last.nextAfter).toBeNull();
  });
});

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

  it('folds only shown offers: min price, distinct stores, sealed and native flags, sorted distinct values', () => {
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
      card: { productId: 5, name: 'Black Lotus', fromPrice: 700, sellerCount: 2, isSealed: true },
    });
    expect(card.card.disclosures).not.toBeNull();
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

  it('keeps one group per shown (sku, store) at its lowest price, and every pair and triple of its values', () => {
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
      // a second variant of the same store and sku: same group, lower price
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
    expect(card.groups.map((g) => [g.skuId, g.storeKey, g.price, g.checkoutMode])).toEqual([
      [10, 'h:north', 750, 'manual'],
      [10, 'n:1', 900, 'express'],
      [10, 'n:2', 600, 'express'],
      [11, 'n:1', 700, 'express'],
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
    expect(card.card).toMatchObject({ fromPrice: 600, sellerCount: 3 });

    // Whatever order the offers arrive in, the same bytes (the live indexer's card equals the rebuild's).
    const reversed = cardFolds();
    for (const o of [...offers].reverse()) foldOffer(reversed, o);
    expect(JSON.stringify(cardDoc(reversed.products.get(5)!))).toBe(JSON.stringify(card));
  });
});
