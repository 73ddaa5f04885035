import { describe, expect, it } from 'vitest';
import { lineDisclosuresSchema, orderSchema } from '../../../src/contract/orders.js';
import type { EntryFacts, EntryOffer } from '../../../src/db/orders.js';
import { enteredRow, freezeLines, newOrder, orderMoney, refusal, sellerIdRefusal, type CheckoutInput } from '../../../src/orders/entry.js';
import { orderBody } from '../../../src/orders/serialize.js';

// The spec beside src/orders/entry.ts: which rule refuses an entry first (by input path), what a
// line freezes, and the money of an order with and without it. DECISIONS.md "Entering orders".

const customer = {
  name: 'A. Buyer',
  email: 'a@example.com',
  shipping_address: { line1: '1 Main St', line2: null, city: 'Halifax', province: 'NS', postal_code: 'B3H 1A1', country: 'CA' },
};

const offer = (skuId: number, o: Partial<EntryOffer> = {}): EntryOffer => ({
  skuId,
  listed: true,
  live: true,
  matched: true,
  available: 5,
  price: 250,
  externalRef: `ref-${skuId}`,
  productId: 101,
  condition: 'Near Mint',
  language: 'English',
  finish: null,
  name: 'Lightning Bolt',
  setName: 'Alpha',
  category: 'Magic: The Gathering',
  ...o,
});

const facts = (f: { seller?: Partial<EntryFacts['seller']>; offers?: EntryOffer[] } = {}): EntryFacts => ({
  seller: {
    currency: 'CAD',
    incomplete: [],
    shipping: { cost: 1299, tracked: true },
    orderExists: false,
    now: new Date('2026-11-25T10:00:00.123Z'),
    ...f.seller,
  },
  offers: f.offers ?? [offer(1), offer(2)],
});

const input = (i: Partial<CheckoutInput> = {}): CheckoutInput => ({
  orderId: 'ord_1',
  sellerId: 7,
  currency: 'CAD',
  customer,
  shippingMethod: 'Tracked',
  lines: [
    { skuId: 1, quantity: 2 },
    { skuId: 2, quantity: 1 },
  ],
  ...i,
});

/** The refusal as `path: detail`, or 'ok'. */
const refused = (i: CheckoutInput, f: EntryFacts) => refusal(i, f)?.message ?? 'ok';

describe('entry refusal: the first rule the input breaks, named by its path', () => {
  it('accepts a good entry', () => expect(refused(input(), facts())).toBe('ok'));

  it.each([
    ['no lines', input({ lines: [] }), facts(), 'lines: expected at least one line'],
    ['another currency', input({ currency: 'USD' }), facts(), "currency: expected the seller's currency CAD, got USD"],
    [
      'a sku twice',
      input({
        lines: [
          { skuId: 1, quantity: 1 },
          { skuId: 2, quantity: 1 },
          { skuId: 1, quantity: 1 },
        ],
      }),
      facts({ offers: [offer(1), offer(2), offer(1)] }),
      'lines[2].skuId: duplicate sku 1 (first at lines[0])',
    ],
    [
      'a store that is not browse-eligible',
      input(),
      facts({ seller: { incomplete: ['terms', 'payout'] } }),
      'lines[0].skuId: sku 1 is not a shown offer of seller 7: the store is not browse-eligible (terms, payout)',
    ],
    [
      'no listing',
      input(),
      facts({ offers: [offer(1), offer(2, { listed: false })] }),
      'lines[1].skuId: sku 2 is not a shown offer of seller 7: no listing',
    ],
    [
      'a deleted listing',
      input(),
      facts({ offers: [offer(1, { live: false }), offer(2)] }),
      'lines[0].skuId: sku 1 is not a shown offer of seller 7: the listing is deleted',
    ],
    [
      'an unmatched listing',
      input(),
      facts({ offers: [offer(1), offer(2, { matched: false })] }),
      'lines[1].skuId: sku 2 is not a shown offer of seller 7: the listing is unmatched',
    ],
    [
      'a sku gone from the catalog',
      input(),
      facts({ offers: [offer(1, { productId: null }), offer(2)] }),
      'lines[0].skuId: sku 1 is not a shown offer of seller 7: the listing is unmatched',
    ],
    [
      'more units than available',
      input(),
      facts({ offers: [offer(1, { available: 1 }), offer(2)] }),
      'lines[0].quantity: 2 requested, 1 available for sku 1',
    ],
    ['no shipping method', input({ shippingMethod: undefined }), facts(), 'shippingMethod: required'],
    [
      'a method the seller does not offer',
      input({ shippingMethod: 'Pigeon' }),
      facts({ seller: { shipping: null } }),
      'shippingMethod: "Pigeon" is not a shipping option of seller 7',
    ],
    ['an operator order with shipping', input({ operator: true }), facts(), 'shippingMethod: an operator order has no shipping option'],
    [
      'an operator order with tax',
      input({ operator: true, shippingMethod: undefined, tax: [{ label: 'HST', rate: 0.15 }] }),
      facts(),
      'tax: an operator order has no tax',
    ],
  ])('refuses %s', (_what, i, f, expected) => expect(refused(i, f)).toBe(expected));

  it('checks the currency before the lines, the lines before shipping, and line by line in input order', () => {
    const bad = facts({ seller: { shipping: null }, offers: [offer(1), offer(2, { listed: false })] });
    expect(refused(input({ currency: 'USD', shippingMethod: 'Pigeon' }), bad)).toMatch(/^currency:/);
    expect(refused(input({ shippingMethod: 'Pigeon' }), bad)).toMatch(/^lines\[1\]\.skuId:/);
    expect(refused(input({ shippingMethod: 'Pigeon' }), facts({ seller: { shipping: null } }))).toMatch(/^shippingMethod:/);
  });

  it('an operator order needs no shipping option of the seller', () => {
    expect(refused(input({ operator: true, shippingMethod: undefined }), facts({ seller: { shipping: null } }))).toBe('ok');
  });

  it('names no seller for an id beyond int4 or below 1', () => {
    expect(sellerIdRefusal(7)).toBeNull();
    for (const id of [0, -1, 1.5, 2147483648]) expect(sellerIdRefusal(id)?.message).toBe(`sellerId: seller ${id} does not exist`);
  });
});

describe('entry freezing: each line as the buyer saw it', () => {
  it('keeps the price, catalog names, disclosures (snake_case) and the obligation of each offer', () => {
    const [magic, other] = freezeLines(input().lines, [offer(1), offer(2, { category: 'Pokémon', price: 999, externalRef: null })]);
    expect(magic).toEqual({
      position: 0,
      skuId: 1,
      productId: 101,
      quantity: 2,
      orderedQuantity: 2,
      unitPrice: 250,
      name: 'Lightning Bolt',
      setName: 'Alpha',
      condition: 'Near Mint',
      language: 'English',
      finish: null,
      externalRef: 'ref-1',
      disclosures: {
        image_source: 'catalog',
        condition_source: 'seller_declared',
        authenticity_source: 'seller_attestation',
        service_inspected: false,
        service_graded: false,
        service_authenticated: false,
        grading_standard: 'service-magic-v1',
        declared_grade: null,
        buyer_protection: 'magic-grade-and-authenticity',
      },
      fulfillmentObligation: { sku: 'exact', printing: 'exact', language: 'exact', finish: 'exact', condition: 'declared-or-better' },
    });
    expect(other).toMatchObject({ position: 1, unitPrice: 999, externalRef: null });
    expect(other!.disclosures).toMatchObject({ grading_standard: 'seller-declared-no-specialist-promise', buyer_protection: 'genuine-and-as-described' });
    expect(lineDisclosuresSchema.strict().parse(other!.disclosures)).toEqual(other!.disclosures);
  });

  it("freezes the catalog's missing names and condition as empty strings", () => {
    const [l] = freezeLines([{ skuId: 1, quantity: 1 }], [offer(1, { name: null, setName: null, condition: null, language: null })]);
    expect(l).toMatchObject({ name: '', setName: '', condition: '', language: null });
  });
});

describe('entry money', () => {
  const lines = freezeLines(input().lines, [offer(1), offer(2, { price: 999 })]);

  it('totals the lines at the shipping option, taxing subtotal plus shipping', () => {
    // 2 x 250 + 999 = 1499; base 1499 + 1299 = 2798; 0.15 x 2798 = 419.7 -> 420
    expect(orderMoney(input({ tax: [{ label: 'HST', rate: 0.15 }] }), { cost: 1299, tracked: true }, lines)).toEqual({
      shippingMethod: 'Tracked',
      shippingCost: 1299,
      shippingTracked: true,
      taxRates: [{ label: 'HST', rate: 0.15 }],
      subtotal: 1499,
      tax: 420,
      grandTotal: 3218,
      taxLines: [{ label: 'HST', rate: 0.15, amount: 420 }],
    });
  });

  it('an order without tax has no tax lines', () => {
    expect(orderMoney(input(), { cost: 0, tracked: false }, lines)).toMatchObject({
      subtotal: 1499,
      tax: 0,
      grandTotal: 1499,
      taxLines: [],
      taxRates: [],
    });
  });

  it('an operator order carries no money, and its body no totals, tax or shipping', () => {
    const money = orderMoney(input({ operator: true, shippingMethod: undefined }), null, lines);
    expect(money).toEqual({
      shippingMethod: null,
      shippingCost: null,
      shippingTracked: null,
      taxRates: [],
      subtotal: null,
      tax: null,
      grandTotal: null,
      taxLines: [],
    });
    const order = newOrder(input({ operator: true }), new Date('2026-11-25T10:00:00.123Z'), money, lines);
    expect(order.hasMoney).toBe(false);
    const row = enteredRow(order);
    const body = orderSchema.parse(orderBody(row, lines));
    expect(body).not.toHaveProperty('totals');
    expect(body).not.toHaveProperty('shipping');
    expect(body.created_at).toBe('2026-11-25T10:00:00.123Z');
  });
});
