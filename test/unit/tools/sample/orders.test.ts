import { describe, expect, it } from 'vitest';
import { derivedOrderId } from '../../../../src/fixtures/load.js';
import { parseFixture } from '../../../../src/fixtures/parse.js';
import { fulfillmentBodySchema, cancelBodySchema } from '../../../../src/contract/orders.js';
import { sampleSizes, seller, sellerQuotas } from '../../../../tools/sample/model.js';
import { browseEligible, fixtureOrder, pickOrders, sampleShops, type ShopFacts } from '../../../../tools/sample/orders.js';
import { entryGroups } from '../../../../tools/sample/pg-orders.js';

const SIZES = sampleSizes(3_000);

describe('sample orders: picking', () => {
  it('is deterministic: same seed => same orders and ids; another seed => others', () => {
    const a = pickOrders(5, sampleShops(5, SIZES), 300);
    const b = pickOrders(5, sampleShops(5, SIZES), 300);
    expect(b).toEqual(a);
    expect(a).toHaveLength(300);
    expect(new Set(a.map((o) => o.orderId)).size).toBe(300);
    a.forEach((o, i) => expect(o.orderId).toBe(derivedOrderId(o.order, i)));
    const c = pickOrders(6, sampleShops(6, SIZES), 300);
    expect(c.map((o) => o.orderId)).not.toEqual(a.map((o) => o.orderId));
  });

  it('orders only shown offers of browse-eligible sellers, with their currency and shipping options', () => {
    const shops = sampleShops(5, SIZES);
    const bySeller = new Map(shops.map((s) => [s.sellerId, s]));
    // Sellers the readiness rule turns away are never a shop (the sample has some).
    const ineligible = Array.from({ length: SIZES.sellers }, (_, i) => seller(5, i + 1)).filter((s) => !browseEligible(s));
    expect(ineligible.length).toBeGreaterThan(0);
    for (const s of ineligible) expect(bySeller.has(s.sellerId)).toBe(false);
    for (const o of pickOrders(5, shops, 400)) {
      const shop = bySeller.get(o.order.sellerId)!;
      expect(shop).toBeDefined();
      expect(o.order.currency).toBe(shop.currency);
      expect(o.order.lines.length).toBeGreaterThanOrEqual(1);
      expect(o.order.lines.length).toBeLessThanOrEqual(5);
      expect(new Set(o.order.lines.map((l) => l.skuId)).size).toBe(o.order.lines.length);
      for (const l of o.order.lines) expect([...shop.skuIds]).toContain(l.skuId);
      if (o.order.operator) {
        expect(o.order.shippingMethod).toBeUndefined();
        expect(o.order.tax).toBeUndefined();
      } else {
        expect(shop.shippingOptions.map((x) => x.method)).toContain(o.order.shippingMethod);
      }
    }
  });

  it('never orders more units of an offer than listed, across all orders of a run, even when stock runs out', () => {
    // A tiny shop: 3 offers, 4 units in all; 10 orders wanted.
    const tiny: ShopFacts = {
      sellerId: 9,
      currency: 'CAD',
      shippingOptions: [{ method: 'Lettermail', tracked: false }],
      skuIds: Int32Array.from([11, 12, 13]),
      quantities: Int32Array.from([1, 2, 1]),
    };
    const orders = pickOrders(1, [tiny], 10);
    const units = new Map<number, number>();
    for (const o of orders) for (const l of o.order.lines) units.set(l.skuId, (units.get(l.skuId) ?? 0) + l.quantity);
    expect(Object.fromEntries(units)).toEqual({ 11: 1, 12: 2, 13: 1 }); // all sold, none beyond stock
    expect(orders.length).toBeLessThan(10); // stopped when sold out

    const shops = sampleShops(7, SIZES);
    const listed = new Map<string, number>(shops.flatMap((s) => [...s.skuIds].map((sku, j) => [`${s.sellerId}:${sku}`, s.quantities[j]!] as const)));
    const ordered = new Map<string, number>();
    for (const o of pickOrders(7, shops, 1_500)) {
      for (const l of o.order.lines) ordered.set(`${o.order.sellerId}:${l.skuId}`, (ordered.get(`${o.order.sellerId}:${l.skuId}`) ?? 0) + l.quantity);
    }
    for (const [key, n] of ordered) expect(n, key).toBeLessThanOrEqual(listed.get(key)!);
  });

  it('is varied: several sellers, operator orders, taxed and untaxed, every fate; moves are valid API bodies', () => {
    const orders = pickOrders(3, sampleShops(3, SIZES), 500);
    expect(new Set(orders.map((o) => o.order.sellerId)).size).toBeGreaterThan(10);
    expect(orders.some((o) => o.order.operator)).toBe(true);
    expect(orders.some((o) => o.order.tax !== undefined)).toBe(true);
    expect(orders.some((o) => !o.order.operator && o.order.tax === undefined)).toBe(true);
    expect(new Set(orders.map((o) => o.order.lines.length))).toEqual(new Set([1, 2, 3, 4, 5]));
    const last = (o: (typeof orders)[number]) => o.moves.at(-1);
    const fates = new Set(
      orders.map((o) => {
        const m = last(o);
        if (!m) return 'created';
        return m.kind === 'cancel' ? (m.body.lines ? 'lines-cancelled' : 'cancelled') : m.body.status;
      }),
    );
    expect(fates).toEqual(new Set(['created', 'accepted', 'shipped', 'delivered', 'cancelled', 'lines-cancelled']));
    for (const o of orders) {
      for (const m of o.moves) {
        if (m.kind === 'fulfillment') {
          fulfillmentBodySchema.parse(m.body);
          if (m.body.status === 'shipped' && !o.order.operator) {
            const tracked = o.order.shippingMethod !== 'Lettermail';
            expect(m.body.trackingNumber !== undefined, o.orderId).toBe(tracked);
          }
        } else {
          cancelBodySchema.parse(m.body);
          // A line cancel leaves something: otherwise it would be the whole order's.
          const cancelled = (m.body.lines ?? []).reduce((s, c) => s + (c.quantity ?? o.order.lines.find((l) => l.skuId === c.skuId)!.quantity), 0);
          if (m.body.lines) expect(cancelled).toBeLessThan(o.order.lines.reduce((s, l) => s + l.quantity, 0));
        }
      }
    }
  });

  it('writes fixture-format orders the loader parses to the same orders (and the same derived ids)', () => {
    const orders = pickOrders(2, sampleShops(2, SIZES), 50);
    const doc = parseFixture({ orders: orders.map(fixtureOrder) });
    expect(doc.orders).toEqual(orders.map((o) => o.order));
    doc.orders!.forEach((o, i) => expect(derivedOrderId(o, i)).toBe(orders[i]!.orderId));
  });

  it('covers every seller with listings it can sell: shops are exactly the eligible sellers with shown offers', () => {
    const quotas = sellerQuotas(4, SIZES);
    const shops = sampleShops(4, SIZES).map((s) => s.sellerId);
    const eligible = Array.from({ length: SIZES.sellers }, (_, i) => seller(4, i + 1)).filter((s) => browseEligible(s) && quotas[s.sellerId - 1]! > 0);
    // Every eligible seller with a quota has at least one matched, in-stock listing at this size.
    expect(shops).toEqual(eligible.map((s) => s.sellerId));
    expect(shops.slice(0, 3)).toEqual([1, 2, 3]);
  });

  it('splits entry into groups of disjoint sellers, the orders of each seller in run order', () => {
    const orders = pickOrders(8, sampleShops(8, SIZES), 600);
    const groups = entryGroups(orders, 3);
    expect(groups).toHaveLength(3);
    expect(
      groups
        .flat()
        .map((o) => o.orderId)
        .sort(),
    ).toEqual(orders.map((o) => o.orderId).sort());
    const sellersOf = groups.map((g) => new Set(g.map((o) => o.order.sellerId)));
    for (const s of sellersOf[0]!) expect(sellersOf[1]!.has(s) || sellersOf[2]!.has(s)).toBe(false);
    for (const s of sellersOf[1]!) expect(sellersOf[2]!.has(s)).toBe(false);
    const rank = new Map(orders.map((o, i) => [o.orderId, i]));
    for (const g of groups) {
      const bySeller = new Map<number, number[]>();
      for (const o of g) bySeller.set(o.order.sellerId, [...(bySeller.get(o.order.sellerId) ?? []), rank.get(o.orderId)!]);
      for (const ranks of bySeller.values()) expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    }
    expect(entryGroups(orders, 3)).toEqual(groups);
  });
});
