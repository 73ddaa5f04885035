// The cart, kept in the browser (localStorage): what the buyer added, at which price. Its
// display data, current price and stock always come from POST /lines/lookup; `cartRows` decides,
// without I/O, what each line shows and what the total is.
import type { CartLine } from '../src/contract/buyer.js';

export interface StoredLine {
  sellerId: number;
  skuId: number;
  quantity: number;
  /** The offer's price when it was added, to flag a change. */
  addedPrice: number;
}

/** POST /lines/lookup takes at most 500 pairs: the cart's maximum line count. */
export const MAX_CART_LINES = 500;
const KEY = 'storefront.cart';

const isLine = (x: unknown): x is StoredLine => {
  const l = x as StoredLine;
  return (
    typeof l === 'object' &&
    l !== null &&
    [l.sellerId, l.skuId, l.quantity, l.addedPrice].every((n) => Number.isInteger(n)) &&
    l.sellerId > 0 &&
    l.skuId > 0 &&
    l.quantity > 0
  );
};

export function readCart(storage: Pick<Storage, 'getItem'> = localStorage): StoredLine[] {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter(isLine).slice(0, MAX_CART_LINES) : [];
  } catch {
    return [];
  }
}

export function writeCart(lines: StoredLine[], storage: Pick<Storage, 'setItem'> = localStorage): void {
  storage.setItem(KEY, JSON.stringify(lines));
}

const same = (a: { sellerId: number; skuId: number }, b: { sellerId: number; skuId: number }) => a.sellerId === b.sellerId && a.skuId === b.skuId;

/** Adds units of an offer; the same offer again adds to its line (its price is the latest one seen). */
export function addLine(lines: StoredLine[], add: StoredLine): StoredLine[] {
  if (lines.some((l) => same(l, add)))
    return lines.map((l) => (same(l, add) ? { ...l, quantity: l.quantity + add.quantity, addedPrice: add.addedPrice } : l));
  return lines.length >= MAX_CART_LINES ? lines : [...lines, add];
}

export function setQuantity(lines: StoredLine[], key: { sellerId: number; skuId: number }, quantity: number): StoredLine[] {
  return quantity < 1 ? removeLine(lines, key) : lines.map((l) => (same(l, key) ? { ...l, quantity } : l));
}

export function removeLine(lines: StoredLine[], key: { sellerId: number; skuId: number }): StoredLine[] {
  return lines.filter((l) => !same(l, key));
}

export type LineStatus =
  /** Buyable as it stands (perhaps at a changed price, or fewer units than asked). */
  | 'ok'
  /** No live listing with stock backs the pair. */
  | 'sold-out'
  /** The sku (or seller) is not known any more: nothing to show but the pair. */
  | 'gone'
  /** The store fails checkout readiness (vacation, suspended...): kept, never priced into the total. */
  | 'seller-unavailable';

export interface CartRow {
  line: StoredLine;
  info: CartLine | undefined;
  status: LineStatus;
  /** The current price differs from the price when added. */
  priceChanged: boolean;
  /** Units that can be bought now: min(quantity, available), 0 unless `ok`. */
  buyable: number;
  /** currentPrice x buyable, null unless `ok`. */
  lineTotal: number | null;
}

export function cartRows(lines: StoredLine[], lookup: CartLine[]): { rows: CartRow[]; total: number; buyableLines: number } {
  const rows = lines.map((line): CartRow => {
    const info = lookup.find((l) => same(l, line));
    const status: LineStatus =
      !info || info.product === null || info.sku === null || info.seller === null
        ? 'gone'
        : info.sellerUnavailable
          ? 'seller-unavailable'
          : info.currentPrice === null || info.available <= 0
            ? 'sold-out'
            : 'ok';
    const price = info?.currentPrice ?? null;
    const buyable = status === 'ok' ? Math.min(line.quantity, info!.available) : 0;
    return {
      line,
      info,
      status,
      priceChanged: price !== null && price !== line.addedPrice,
      buyable,
      lineTotal: status === 'ok' && price !== null ? price * buyable : null,
    };
  });
  return {
    rows,
    total: rows.reduce((s, r) => s + (r.lineTotal ?? 0), 0),
    buyableLines: rows.filter((r) => r.status === 'ok').length,
  };
}
