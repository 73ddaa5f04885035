import { describe, expect, it } from 'vitest';
import { CHUNK, chunkOps, type DocOp } from '../../../indexer/build-ops.js';
import type { Facts } from '../../../indexer/facts.js';
import type { HandoffStoreFacts, NativeRow, ProductFacts, SellerFacts, SkuFacts, VariantFacts } from '../../../src/db/offer-source.js';

// The indexer's documents are pure functions of a chunk's facts: each case gives the facts and
// pins every op and every document exactly, key order included (the bytes the bulk writer sends).

const Z = '\u0000';

const bolt: ProductFacts = {
  productId: 101,
  name: 'Lightning Bölt',
  set: 'Alpha',
  category: 'Magic: The Gathering',
  rarity: 'Common',
  collectorNumber: '161',
  imageUrl: null,
  details: [{ label: 'Artist', value: 'Christopher Rush' }],
};
const pikachu: ProductFacts = {
  productId: 102,
  name: 'Pikachu',
  set: 'Base',
  category: 'Pokémon',
  rarity: 'Rare',
  collectorNumber: '58',
  imageUrl: 'https://img.example/102.jpg',
  details: [],
};
const nearMint: SkuFacts = { skuId: 1001, productId: 101, condition: 'Near Mint', language: 'English', finish: 'Foil' };
const damaged: SkuFacts = { skuId: 1002, productId: 101, condition: 'Damaged', language: 'English', finish: null };
const sealed: SkuFacts = { skuId: 2001, productId: 102, condition: 'Unopened', language: 'Japanese', finish: null };
const maple: SellerFacts = {
  sellerId: 7,
  sellerCode: 'maple',
  storeName: 'Maple Cards',
  vacation: false,
  browseEligible: true,
  poBoxDelivery: 'available',
};
const birch: SellerFacts = {
  sellerId: 8,
  sellerCode: 'birch',
  storeName: 'Birch',
  vacation: false,
  browseEligible: true,
  poBoxDelivery: 'seller_declines',
};
const oak: SellerFacts = { sellerId: 9, sellerCode: 'oak', storeName: 'Oak', vacation: true, browseEligible: false, poBoxDelivery: 'available' };
const north: HandoffStoreFacts = { storeSlug: 'north-shop', storeName: 'North Shop', sellerCode: 'north', active: true, reviewSum: 9, reviewCount: 2 };
const closed: HandoffStoreFacts = { storeSlug: 'closed-shop', storeName: 'Closed', sellerCode: null, active: false, reviewSum: 0, reviewCount: 0 };

const row = (seller: SellerFacts, sku: SkuFacts, price: number, available: number): NativeRow => ({
  listing: { sellerId: seller.sellerId, skuId: sku.skuId, price, available },
  sku,
});
const variant = (variantId: number, storeSlug: string, skuId: number, productId: number, price: number, quantity: number): VariantFacts => ({
  variantId,
  storeSlug,
  skuId,
  productId,
  price,
  quantity,
});

function facts(over: Partial<Facts>): Facts {
  return {
    poBox: false,
    rows: [],
    variants: [],
    skus: new Map(),
    cards: { productIds: [], kept: [], rows: [], variants: [] },
    sellers: new Map([maple, birch, oak].map((s) => [s.sellerId, s])),
    counts: new Map(),
    products: new Map([bolt, pikachu].map((p) => [p.productId, p])),
    stores: new Map([north, closed].map((s) => [s.storeSlug, s])),
    ...over,
  };
}

/** Equal, and in the same key order: the JSON the bulk body carries. */
function expectExact(actual: DocOp[][], expected: DocOp[][]): void {
  expect(actual).toStrictEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

const MAGIC_DISCLOSURES = {
  imageSource: 'catalog',
  conditionSource: 'seller_declared',
  authenticitySource: 'seller_attestation',
  serviceInspected: false,
  serviceGraded: false,
  serviceAuthenticated: false,
  gradingStandard: 'service-magic-v1',
  declaredGrade: null,
  buyerProtection: 'magic-grade-and-authenticity',
};
const OBLIGATION = { sku: 'exact', printing: 'exact', language: 'exact', finish: 'exact', condition: 'declared-or-better' };
const BOLT_FIELDS = {
  sortKey: `lightning bolt${Z}0000000101`,
  nameTerms: 'lightning bolt',
  category: 'Magic: The Gathering',
  set: 'Alpha',
  rarity: 'Common',
  collectorNumber: '161',
};
const BOLT_ITEM = {
  productId: 101,
  name: 'Lightning Bölt',
  set: 'Alpha',
  category: 'Magic: The Gathering',
  rarity: 'Common',
  collectorNumber: '161',
  imageUrl: null,
};

/** maple's Near Mint copy of the bolt at 250, 4 available, PO boxes as maple has them. */
const mapleNearMint = {
  docType: 'offer',
  shown: true,
  lane: 'native',
  productId: 101,
  skuId: 1001,
  sellerId: 7,
  ownerId: 7,
  laneOrder: 0,
  storeKey: 'n:7',
  sellerCode: 'maple',
  sellerFacet: `maple${Z}Maple Cards`,
  condition: 'Near Mint',
  language: 'English',
  finish: 'Foil',
  isSealed: false,
  price: 250,
  available: 4,
  checkoutMode: 'express',
  ...BOLT_FIELDS,
  item: BOLT_ITEM,
  offer: {
    lane: 'native',
    productId: 101,
    sellerId: 7,
    storeSlug: null,
    variantId: null,
    skuId: 1001,
    sellerName: 'Maple Cards',
    condition: 'Near Mint',
    language: 'English',
    finish: 'Foil',
    isSealed: false,
    price: 250,
    available: 4,
    checkoutMode: 'express',
    sellerCode: 'maple',
    poBoxDelivery: { status: 'available' },
    disclosures: MAGIC_DISCLOSURES,
    fulfillmentObligation: OBLIGATION,
  },
};

describe('native chunks', () => {
  it("write each pair's offer as PostgreSQL has it and remove the pairs it has not, after the cards of their products", () => {
    const f = facts({
      rows: [row(maple, nearMint, 250, 4)],
      // The bolt's offers now: maple's, and oak's on vacation (not shown: no group). The index
      // still files an offer under 102, which has no offer left.
      cards: { productIds: [101, 102], kept: [], rows: [row(maple, nearMint, 250, 4), row(oak, damaged, 100, 2)], variants: [] },
    });
    const pairs = [
      { sellerId: 7, skuId: 1001 },
      { sellerId: 8, skuId: 1001 },
    ];
    expectExact(
      chunkOps({ kind: 'native', pairs }, f) as DocOp[][],
      [
        [
          {
            id: 'c:101',
            doc: {
              docType: 'card',
              productId: 101,
              sortKey: BOLT_FIELDS.sortKey,
              nameTerms: BOLT_FIELDS.nameTerms,
              nameKey: 'Lightning Bölt',
              nameGrams: ['ligh', 'light', 'lightn', 'lightni', 'lightnin', 'lightning', 'bolt'],
              category: BOLT_FIELDS.category,
              set: BOLT_FIELDS.set,
              rarity: BOLT_FIELDS.rarity,
              collectorNumber: BOLT_FIELDS.collectorNumber,
              condition: ['Near Mint'],
              language: ['English'],
              finish: ['Foil'],
              sellerCode: ['maple'],
              sellerFacet: [`maple${Z}Maple Cards`],
              checkoutMode: ['express'],
              card: {
                ...BOLT_ITEM,
                isSealed: false,
                sellerCount: 1,
                disclosures: MAGIC_DISCLOSURES,
                fulfillmentObligation: OBLIGATION,
              },
              groups: [
                {
                  skuId: 1001,
                  storeKey: 'n:7',
                  lane: 'native',
                  checkoutMode: 'express',
                  sellerCode: 'maple',
                  sellerFacet: `maple${Z}Maple Cards`,
                  condition: 'Near Mint',
                  language: 'English',
                  finish: 'Foil',
                  isSealed: false,
                },
              ],
              groupKeys: ['1001|n:7|qr7mhaot2h'],
              productKey: '20orl8czk3x',
              x_cl: [`Near Mint${Z}English`],
              x_cf: [`Near Mint${Z}Foil`],
              x_lf: [`English${Z}Foil`],
              x_cm: [`Near Mint${Z}express`],
              x_lm: [`English${Z}express`],
              x_fm: [`Foil${Z}express`],
              x_cs: [`Near Mint${Z}maple${Z}Maple Cards`],
              x_ls: [`English${Z}maple${Z}Maple Cards`],
              x_fs: [`Foil${Z}maple${Z}Maple Cards`],
              x_ms: [`express${Z}maple${Z}Maple Cards`],
              x_clf: [`Near Mint${Z}English${Z}Foil`],
              x_clm: [`Near Mint${Z}English${Z}express`],
              x_cfm: [`Near Mint${Z}Foil${Z}express`],
              x_lfm: [`English${Z}Foil${Z}express`],
              x_cls: [`Near Mint${Z}English${Z}maple${Z}Maple Cards`],
              x_cfs: [`Near Mint${Z}Foil${Z}maple${Z}Maple Cards`],
              x_lfs: [`English${Z}Foil${Z}maple${Z}Maple Cards`],
              x_cms: [`Near Mint${Z}express${Z}maple${Z}Maple Cards`],
              x_lms: [`English${Z}express${Z}maple${Z}Maple Cards`],
              x_fms: [`Foil${Z}express${Z}maple${Z}Maple Cards`],
            },
          },
          { id: 'c:102', doc: null },
        ],
        [
          { id: 'n:7:1001', doc: mapleNearMint },
          { id: 'n:8:1001', doc: null },
        ],
      ] as DocOp[][],
    );
  });

  it('index offers that are not shown (sold out, seller on vacation) for the cart lookup, and the PO-box suspension on every native offer', () => {
    const f = facts({ poBox: true, rows: [row(birch, nearMint, 240, 0), row(oak, damaged, 100, 2)] });
    const pairs = [
      { sellerId: 8, skuId: 1001 },
      { sellerId: 9, skuId: 1002 },
    ];
    const birchSoldOut = {
      ...mapleNearMint,
      shown: false,
      sellerId: 8,
      ownerId: 8,
      storeKey: 'n:8',
      sellerCode: 'birch',
      sellerFacet: `birch${Z}Birch`,
      price: 240,
      available: 0,
      offer: {
        ...mapleNearMint.offer,
        sellerId: 8,
        sellerName: 'Birch',
        price: 240,
        available: 0,
        sellerCode: 'birch',
        poBoxDelivery: { status: 'platform_suspended' },
      },
    };
    const oakOnVacation = {
      ...birchSoldOut,
      skuId: 1002,
      sellerId: 9,
      ownerId: 9,
      storeKey: 'n:9',
      sellerCode: 'oak',
      sellerFacet: `oak${Z}Oak`,
      condition: 'Damaged',
      finish: null,
      price: 100,
      available: 2,
      offer: {
        ...birchSoldOut.offer,
        sellerId: 9,
        skuId: 1002,
        sellerName: 'Oak',
        condition: 'Damaged',
        finish: null,
        price: 100,
        available: 2,
        sellerCode: 'oak',
      },
    };
    expectExact(chunkOps({ kind: 'native', pairs }, f), [
      [
        { id: 'n:8:1001', doc: birchSoldOut },
        { id: 'n:9:1002', doc: oakOnVacation },
      ],
    ] as DocOp[][]);
  });

  it('send more cards than one bulk request holds as several requests, all before the offers', () => {
    const productIds = Array.from({ length: CHUNK + 1 }, (_, i) => 10_000 + i);
    const ops = chunkOps({ kind: 'native', pairs: [{ sellerId: 7, skuId: 1001 }] }, facts({ cards: { productIds, kept: [], rows: [], variants: [] } }));
    expect(ops.map((o) => o.length)).toEqual([CHUNK, 1, 1]);
    expect(ops[1]).toEqual([{ id: `c:${10_000 + CHUNK}`, doc: null }]);
    expect(ops[2]).toEqual([{ id: 'n:7:1001', doc: null }]);
  });
});

describe('handoff chunks', () => {
  const north55 = {
    docType: 'offer',
    shown: true,
    lane: 'handoff',
    productId: 102,
    skuId: 2001,
    sellerId: null,
    ownerId: 55,
    laneOrder: 1,
    storeKey: 'h:north-shop',
    sellerCode: 'north',
    sellerFacet: `north${Z}North Shop`,
    condition: 'Unopened',
    language: 'Japanese',
    finish: null,
    isSealed: true,
    price: 900,
    available: 2,
    checkoutMode: 'manual',
    sortKey: `pikachu${Z}0000000102`,
    nameTerms: 'pikachu',
    category: 'Pokémon',
    set: 'Base',
    rarity: 'Rare',
    collectorNumber: '58',
    item: {
      productId: 102,
      name: 'Pikachu',
      set: 'Base',
      category: 'Pokémon',
      rarity: 'Rare',
      collectorNumber: '58',
      imageUrl: 'https://img.example/102.jpg',
    },
    offer: {
      lane: 'handoff',
      productId: 102,
      sellerId: null,
      storeSlug: 'north-shop',
      variantId: 55,
      skuId: 2001,
      sellerName: 'North Shop',
      condition: 'Unopened',
      language: 'Japanese',
      finish: null,
      isSealed: true,
      price: 900,
      available: 2,
      checkoutMode: 'manual',
      salesCount: null,
      sellerCode: 'north',
      reviewScore: { score: 4.5, count: 2 },
      poBoxDelivery: null,
      disclosures: null,
      fulfillmentObligation: null,
    },
  };

  it('write each variant of a known store, shown while the store is active and has stock; remove variants or stores PostgreSQL no longer has', () => {
    const f = facts({
      variants: [
        variant(55, 'north-shop', 2001, 102, 900, 2),
        // A sku not in the catalog: the variant's own product, no printing values.
        variant(56, 'closed-shop', 3999, 102, 120, 1),
        variant(58, 'gone-shop', 2001, 102, 100, 1),
      ],
      skus: new Map([[2001, sealed]]),
      // A handoff-only product's card: no disclosures, no obligation.
      cards: {
        productIds: [102],
        kept: [],
        rows: [],
        variants: [variant(55, 'north-shop', 2001, 102, 900, 2), variant(56, 'closed-shop', 3999, 102, 120, 1)],
      },
    });
    const closed56 = {
      ...north55,
      shown: false,
      skuId: 3999,
      ownerId: 56,
      storeKey: 'h:closed-shop',
      sellerCode: null,
      sellerFacet: null,
      condition: null,
      language: null,
      isSealed: false,
      price: 120,
      available: 1,
      offer: {
        ...north55.offer,
        storeSlug: 'closed-shop',
        variantId: 56,
        skuId: 3999,
        sellerName: 'Closed',
        condition: null,
        language: null,
        isSealed: false,
        price: 120,
        available: 1,
        sellerCode: null,
        reviewScore: { score: null, count: 0 },
      },
    };
    expectExact(chunkOps({ kind: 'handoff', variantIds: [55, 56, 57, 58] }, f), [
      [
        {
          id: 'c:102',
          doc: {
            docType: 'card',
            productId: 102,
            sortKey: `pikachu${Z}0000000102`,
            nameTerms: 'pikachu',
            nameKey: 'Pikachu',
            nameGrams: ['pika', 'pikac', 'pikach', 'pikachu'],
            category: 'Pokémon',
            set: 'Base',
            rarity: 'Rare',
            collectorNumber: '58',
            condition: ['Unopened'],
            language: ['Japanese'],
            finish: [],
            sellerCode: ['north'],
            sellerFacet: [`north${Z}North Shop`],
            checkoutMode: ['manual'],
            card: { ...north55.item, isSealed: true, sellerCount: 1, disclosures: null, fulfillmentObligation: null },
            groups: [
              {
                skuId: 2001,
                storeKey: 'h:north-shop',
                lane: 'handoff',
                checkoutMode: 'manual',
                sellerCode: 'north',
                sellerFacet: `north${Z}North Shop`,
                condition: 'Unopened',
                language: 'Japanese',
                finish: null,
                isSealed: true,
              },
            ],
            groupKeys: ['2001|h:north-shop|1jgbb6zlmq7'],
            productKey: '1tyxa1jfrxo',
            x_cl: [`Unopened${Z}Japanese`],
            x_cm: [`Unopened${Z}manual`],
            x_lm: [`Japanese${Z}manual`],
            x_cs: [`Unopened${Z}north${Z}North Shop`],
            x_ls: [`Japanese${Z}north${Z}North Shop`],
            x_ms: [`manual${Z}north${Z}North Shop`],
            x_clm: [`Unopened${Z}Japanese${Z}manual`],
            x_cls: [`Unopened${Z}Japanese${Z}north${Z}North Shop`],
            x_cms: [`Unopened${Z}manual${Z}north${Z}North Shop`],
            x_lms: [`Japanese${Z}manual${Z}north${Z}North Shop`],
          },
        },
      ],
      [
        { id: 'h:55', doc: north55 },
        { id: 'h:56', doc: closed56 },
        { id: 'h:57', doc: null },
        { id: 'h:58', doc: null },
      ],
    ] as DocOp[][]);
  });
});

describe('product, sku and seller chunks', () => {
  it('write one document per key, or its removal, and bring no cards', () => {
    const f = facts({ skus: new Map([[2001, sealed]]), counts: new Map([[7, { sellerId: 7, salesCount: 12, reviewSum: 9, reviewCount: 2 }]]) });
    expectExact(chunkOps({ kind: 'product', productIds: [101, 999] }, f), [
      [
        {
          id: 'p:101',
          doc: {
            docType: 'product',
            productId: 101,
            product: {
              productId: 101,
              name: 'Lightning Bölt',
              set: 'Alpha',
              rarity: 'Common',
              collectorNumber: '161',
              imageUrl: null,
              details: [{ label: 'Artist', value: 'Christopher Rush' }],
            },
          },
        },
        { id: 'p:999', doc: null },
      ],
    ] as DocOp[][]);
    expectExact(chunkOps({ kind: 'sku', skuIds: [2001, 2002] }, f), [
      [
        {
          id: 'k:2001',
          doc: {
            docType: 'sku',
            skuId: 2001,
            productId: 102,
            cart: {
              product: { productId: 102, name: 'Pikachu', set: 'Base', image: 'https://img.example/102.jpg' },
              sku: { condition: 'Unopened', language: 'Japanese', finish: null },
              category: 'Pokémon',
            },
          },
        },
        { id: 'k:2002', doc: null },
      ],
    ] as DocOp[][]);
    // Counters from the seller's own counts; a seller without them has none yet.
    expectExact(chunkOps({ kind: 'seller', sellerIds: [7, 9, 10] }, f), [
      [
        {
          id: 's:7',
          doc: {
            docType: 'seller',
            sellerId: 7,
            cartSeller: { name: 'Maple Cards', browseEligible: true, vacation: false },
            stats: { salesCount: 12, reviewScore: { score: 4.5, count: 2 } },
          },
        },
        {
          id: 's:9',
          doc: {
            docType: 'seller',
            sellerId: 9,
            cartSeller: { name: 'Oak', browseEligible: false, vacation: true },
            stats: { salesCount: 0, reviewScore: { score: null, count: 0 } },
          },
        },
        { id: 's:10', doc: null },
      ],
    ] as DocOp[][]);
  });
});
