import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseFixture, parseFixtureText } from '../../src/fixtures/parse.js';
import { checkFixture, NO_FACTS, type DbFacts } from '../../src/fixtures/check.js';
import { FixtureError } from '../../src/fixtures/errors.js';

const exampleText = readFileSync(new URL('../fixtures/example.json', import.meta.url), 'utf8');
const example = () => JSON.parse(exampleText) as Record<string, any>;

/** The FixtureError message a document gets, shape and cross-document rules together. */
function refusal(doc: unknown, facts: DbFacts = NO_FACTS): string {
  try {
    checkFixture(parseFixture(doc), facts);
  } catch (err) {
    expect(err).toBeInstanceOf(FixtureError);
    return (err as Error).message;
  }
  throw new Error('document was accepted');
}

const order = (): Record<string, any> => ({
  sellerId: 7,
  currency: 'CAD',
  customer: {
    name: 'A',
    email: 'a@example.com',
    shipping_address: { line1: '1 Main', line2: null, city: 'Halifax', province: 'NS', postal_code: 'B3H 1A1', country: 'CA' },
  },
  lines: [{ skuId: 1001, quantity: 1 }],
  shippingMethod: 'Tracked Expedited',
});

const edit = (f: (d: Record<string, any>) => void) => {
  const d = example();
  f(d);
  return d;
};

describe('fixture schema', () => {
  it('accepts the example of fixture-format.md and applies seller defaults', () => {
    const doc = parseFixtureText(exampleText);
    checkFixture(doc, NO_FACTS);
    expect(doc.sellers?.[0]).toMatchObject({ sellerId: 7, sellerCode: 'maple', termsVersion: '2026-07' });
    const minimal = parseFixture({ sellers: [{ sellerId: 1, sellerCode: 'x', storeName: 'X', currency: 'CAD', region: 'CA' }] });
    expect(minimal.sellers?.[0]).toMatchObject({
      active: true,
      vacation: false,
      inventorySource: 'platform',
      apiKeys: [],
      poBoxDelivery: 'available',
      incompletePrerequisites: [],
      termsVersion: '2026-07',
      shippingOptions: [],
      reviews: [],
    });
    expect(minimal.sellers?.[0]?.webhook).toBeUndefined();
  });

  it('keeps an explicit null terms version (never accepted)', () => {
    const doc = parseFixture(edit((d) => (d.sellers[0].termsVersion = null)));
    expect(doc.sellers?.[0]?.termsVersion).toBeNull();
  });

  it('accepts an empty document and nullable catalog fields', () => {
    expect(parseFixture({})).toEqual({});
    const doc = parseFixture({
      products: [{ productId: 1, name: null, set: null, category: null, rarity: null, collectorNumber: null, imageUrl: null }],
      skus: [{ skuId: 2, productId: 1, condition: null, language: null, finish: null }],
    });
    expect(doc.products?.[0]?.details).toEqual([]);
  });

  it.each([
    ['negative price', (d: any) => (d.listings[0].price = -1), 'listings[0].price: expected integer >= 0'],
    ['fractional quantity', (d: any) => (d.listings[0].quantity = 1.5), 'listings[0].quantity: expected integer >= 0'],
    ['string money', (d: any) => (d.sellers[0].shippingOptions[0].cost = '12.99'), 'sellers[0].shippingOptions[0].cost: expected integer >= 0'],
    ['zero id', (d: any) => (d.products[0].productId = 0), 'products[0].productId: expected positive integer'],
    ['review out of range', (d: any) => (d.sellers[0].reviews[2] = 6), 'sellers[0].reviews[2]: expected integer 1..5'],
    ['handoff review out of range', (d: any) => (d.handoffStores[0].reviews[0] = 0), 'handoffStores[0].reviews[0]: expected integer 1..5'],
    ['bad enum', (d: any) => (d.sellers[0].inventorySource = 'shopify'), 'sellers[0].inventorySource: expected one of "platform", "manual", "csv"'],
    [
      'bad cancel event',
      (d: any) => (d.sellers[0].webhook.cancelEvent = 'order.refunded'),
      'sellers[0].webhook.cancelEvent: expected one of "order.cancelled", "inventory.adjusted"',
    ],
    [
      'unknown prerequisite',
      (d: any) => (d.sellers[0].incompletePrerequisites = ['SELLER_ACTIVE']),
      'sellers[0].incompletePrerequisites[0]: expected one of',
    ],
    ['unknown key', (d: any) => (d.listings[0].colour = 'red'), 'listings[0].colour: unknown key'],
    ['unknown top-level key', (d: any) => (d.customers = []), 'customers: unknown key'],
    ['missing required field', (d: any) => delete d.sellers[0].storeName, 'sellers[0].storeName: required'],
    ['null where not nullable', (d: any) => (d.listings[0].skuId = null), 'listings[0].skuId: expected positive integer'],
    ['bad date', (d: any) => (d.listings[0].asOf = '01/11/2026'), 'listings[0].asOf: expected ISO-8601 date-time'],
    ['bad api key format', (d: any) => (d.sellers[0].apiKeys = ['mp_maple_xyz']), 'sellers[0].apiKeys[0]: expected API key'],
    ['array expected', (d: any) => (d.products = {}), 'products: expected array'],
  ])('refuses %s with its path', (_name, mutate, message) => {
    expect(refusal(edit(mutate))).toContain(message);
  });

  it('reports the first bad path in document order', () => {
    const d = edit((x) => {
      x.listings[0].price = -1;
      x.products[0].productId = -5;
    });
    expect(refusal(d)).toMatch(/^products\[0\]\.productId:/);
  });

  it('accepts well-formed orders (money and operator) and applies the order defaults', () => {
    const d = edit((x) => (x.orders = [order(), { ...order(), operator: true, shippingMethod: undefined }]));
    const doc = parseFixture(d);
    expect(() => checkFixture(doc, NO_FACTS)).not.toThrow();
    expect(doc.orders!.map((o) => o.operator)).toEqual([false, true]);
  });

  it.each([
    ['money order without shippingMethod', (o: any) => delete o.shippingMethod, 'orders[0].shippingMethod: required (unless operator)'],
    ['operator order with shippingMethod', (o: any) => (o.operator = true), 'orders[0].shippingMethod: an operator order has no shipping option'],
    [
      'operator order with tax',
      (o: any) => {
        o.operator = true;
        delete o.shippingMethod;
        o.tax = [{ label: 'HST', rate: 0.15 }];
      },
      'orders[0].tax: an operator order has no tax',
    ],
    [
      'one sku twice in one order',
      (o: any) => o.lines.push({ skuId: 1001, quantity: 2 }),
      'orders[0].lines[1].skuId: duplicate sku 1001 in one order (first at orders[0].lines[0].skuId)',
    ],
    ['zero quantity', (o: any) => (o.lines[0].quantity = 0), 'orders[0].lines[0].quantity: expected positive integer'],
    ['unknown key', (o: any) => (o.total = 5), 'orders[0].total: unknown key'],
  ])('refuses an order: %s', (_name, change, message) => {
    const o = order();
    change(o);
    expect(refusal(edit((x) => (x.orders = [o])))).toBe(message);
  });

  it('refuses an orderId given twice', () => {
    expect(
      refusal(
        edit(
          (x) =>
            (x.orders = [
              { ...order(), orderId: 'a' },
              { ...order(), orderId: 'a' },
            ]),
        ),
      ),
    ).toBe('orders[1].orderId: duplicate orderId "a" (first at orders[0].orderId)');
  });
});

describe('fixture cross-document rules', () => {
  it('refuses a sku whose product is neither in the file nor in the database', () => {
    const d = edit((x) => x.skus.push({ skuId: 1002, productId: 999, condition: null, language: null, finish: null }));
    expect(refusal(d)).toBe('skus[1].productId: product 999 is neither in this file nor in the database');
    expect(() => checkFixture(parseFixture(d), { ...NO_FACTS, productIds: new Set([999]) })).not.toThrow();
  });

  it('refuses a listing of an unknown seller, unless the database has it', () => {
    const d = edit((x) => (x.listings[0].sellerId = 8));
    expect(refusal(d)).toBe('listings[0].sellerId: seller 8 is neither in this file nor in the database');
    expect(() => checkFixture(parseFixture(d), { ...NO_FACTS, sellerIds: new Set([8]) })).not.toThrow();
  });

  it("refuses a listing whose productId contradicts its sku's catalog product (file or database)", () => {
    expect(refusal(edit((x) => (x.listings[0].productId = 102)))).toBe('listings[0].productId: sku 1001 belongs to product 101, not 102');
    const dbSku = edit((x) => x.listings.push({ sellerId: 7, skuId: 5000, productId: 1, price: 1, quantity: 1 }));
    expect(refusal(dbSku, { ...NO_FACTS, skuProducts: new Map([[5000, 2]]) })).toBe('listings[1].productId: sku 5000 belongs to product 2, not 1');
    // A sku nobody knows is fine: the listing is stored unmatched.
    expect(() => checkFixture(parseFixture(dbSku), NO_FACTS)).not.toThrow();
  });

  it('refuses a variant whose productId contradicts its sku', () => {
    expect(refusal(edit((x) => (x.handoffStores[0].variants[0].productId = 7)))).toBe(
      'handoffStores[0].variants[0].productId: sku 1001 belongs to product 101, not 7',
    );
  });

  it.each([
    ['products', (d: any) => d.products.push({ ...d.products[0] }), 'products[1].productId: duplicate productId 101 (first at products[0].productId)'],
    ['skus', (d: any) => d.skus.push({ ...d.skus[0] }), 'skus[1].skuId: duplicate skuId 1001'],
    ['sellers', (d: any) => d.sellers.push({ ...d.sellers[0], sellerCode: 'other', apiKeys: [] }), 'sellers[1].sellerId: duplicate sellerId 7'],
    ['seller codes', (d: any) => d.sellers.push({ ...d.sellers[0], sellerId: 8, apiKeys: [] }), 'sellers[1].sellerCode: duplicate sellerCode "maple"'],
    ['listings', (d: any) => d.listings.push({ ...d.listings[0] }), 'listings[1].skuId: duplicate listing for seller 7 and sku 1001'],
    [
      'store slugs',
      (d: any) => d.handoffStores.push({ ...d.handoffStores[0], sellerCode: null, variants: [] }),
      'handoffStores[1].storeSlug: duplicate storeSlug "north-shop"',
    ],
    [
      'variants',
      (d: any) => d.handoffStores[0].variants.push({ ...d.handoffStores[0].variants[0] }),
      'handoffStores[0].variants[1].variantId: duplicate variantId 55',
    ],
    [
      'shipping methods',
      (d: any) => d.sellers[0].shippingOptions.push({ ...d.sellers[0].shippingOptions[0] }),
      'sellers[0].shippingOptions[1].method: duplicate shipping method',
    ],
  ])('refuses duplicate %s', (_name, mutate, message) => {
    expect(refusal(edit(mutate))).toContain(message);
  });

  it("refuses an API key naming another seller's code", () => {
    const d = edit((x) => (x.sellers[0].apiKeys = ['mp_north_4f9c2a7d0b1e8f3a6c5d9e2b7a1f0c4d']));
    expect(refusal(d)).toBe('sellers[0].apiKeys[0]: key names seller code "north", expected "maple"');
  });

  it('accepts seller codes with underscores in keys (code = up to the last underscore)', () => {
    const d = edit((x) => {
      x.sellers[0].sellerCode = 'maple_leaf';
      x.sellers[0].apiKeys = ['mp_maple_leaf_4f9c2a7d0b1e8f3a6c5d9e2b7a1f0c4d'];
    });
    expect(() => checkFixture(parseFixture(d), NO_FACTS)).not.toThrow();
  });

  it('refuses a seller code or key that belongs to another seller in the database', () => {
    expect(refusal(example(), { ...NO_FACTS, sellerCodes: new Map([['maple', 9]]) })).toBe('sellers[0].sellerCode: "maple" already belongs to seller 9');
  });
});
