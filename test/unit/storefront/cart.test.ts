import { describe, expect, it } from 'vitest';
import { addLine, cartRows, MAX_CART_LINES, readCart, removeLine, setQuantity, writeCart, type StoredLine } from '../../../storefront/cart.js';
import type { CartLine } from '../../../src/contract/buyer.js';

// What each cart line shows and what the total counts, decided from the stored lines and the
// POST /lines/lookup answer alone.

const line = (sellerId: number, skuId: number, quantity: number, addedPrice: number): StoredLine => ({ sellerId, skuId, quantity, addedPrice });

const looked = (sellerId: number, skuId: number, extra: Partial<CartLine> = {}): CartLine => ({
  sellerId,
  skuId,
  seller: { name: `Seller ${sellerId}` },
  product: { productId: skuId * 10, name: `Card ${skuId}`, set: 'Alpha', image: null },
  sku: { condition: 'Near Mint', language: 'English', finish: 'Non-Foil' },
  currentPrice: 100,
  available: 5,
  policy: { status: 'eligible', error: null },
  ...extra,
});

describe('cart lines', () => {
  it('adding the same offer again adds units; removing and setting 0 drop the line', () => {
    let lines = addLine([], line(1, 10, 2, 100));
    lines = addLine(lines, line(2, 10, 1, 300));
    lines = addLine(lines, line(1, 10, 1, 120));
    expect(lines).toEqual([line(1, 10, 3, 120), line(2, 10, 1, 300)]);
    expect(setQuantity(lines, { sellerId: 2, skuId: 10 }, 0)).toEqual([line(1, 10, 3, 120)]);
    expect(removeLine(lines, { sellerId: 1, skuId: 10 })).toEqual([line(2, 10, 1, 300)]);
  });

  it('holds at most the lookup maximum of lines', () => {
    const full = Array.from({ length: MAX_CART_LINES }, (_, i) => line(1, i + 1, 1, 100));
    expect(addLine(full, line(2, 1, 1, 100))).toHaveLength(MAX_CART_LINES);
  });

  it('sold out, vanished, seller unavailable, short stock and a changed price; the total counts what can be bought', () => {
    const lines = [line(1, 1, 2, 100), line(1, 2, 1, 100), line(9, 3, 1, 100), line(1, 4, 1, 100), line(1, 5, 4, 250), line(2, 6, 1, 100)];
    const lookup = [
      looked(1, 1),
      looked(1, 2, { currentPrice: null, available: 0 }),
      looked(9, 3, { seller: null, product: null, sku: null, currentPrice: null, available: 0 }),
      looked(1, 4, { sellerUnavailable: { sellerId: 1, reason: 'SELLER_ON_VACATION' } }),
      looked(1, 5, { currentPrice: 200, available: 3 }),
      looked(2, 6, { product: null, sku: null, currentPrice: null, available: 0 }),
    ];
    const { rows, total, buyableLines } = cartRows(lines, lookup);
    expect(rows.map((r) => [r.status, r.priceChanged, r.buyable, r.lineTotal])).toEqual([
      ['ok', false, 2, 200],
      ['sold-out', false, 0, null],
      ['gone', false, 0, null],
      ['seller-unavailable', false, 0, null],
      ['ok', true, 3, 600],
      ['gone', false, 0, null],
    ]);
    expect(total).toBe(800);
    expect(buyableLines).toBe(2);
  });

  it('reads back what it wrote and ignores anything malformed in storage', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    writeCart([line(1, 2, 3, 400)], storage);
    expect(readCart(storage)).toEqual([line(1, 2, 3, 400)]);
    store.set('storefront.cart', JSON.stringify([line(1, 2, 3, 400), { sellerId: 'x' }, line(0, 1, 1, 1), line(1, 3, 0, 1)]));
    expect(readCart(storage)).toEqual([line(1, 2, 3, 400)]);
    store.set('storefront.cart', '{not json');
    expect(readCart(storage)).toEqual([]);
  });
});
