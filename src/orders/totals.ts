import type { TaxLine, TaxRate } from '../db/orders.js';

// Totals of DECISIONS.md "Entering orders": subtotal = sum of quantity x unit_price; each tax
// line's amount = rate x (subtotal + shipping) rounded half away from zero to a minor unit.
// Computed in exact decimal arithmetic: 0.15 x 1549 is 232.35 and rounds to 232, whatever the
// nearest double of the product is.

/** `rate` (a finite number >= 0) as an exact decimal fraction digits / 10^scale. */
function decimal(rate: number): { digits: bigint; scale: number } {
  if (!Number.isFinite(rate)) throw new RangeError(`tax rate ${rate} is not finite`);
  // The shortest text that reads back as the same double: what the Platform sent and sees.
  const [mantissa, expPart] = Math.abs(rate).toString().split('e') as [string, string | undefined];
  const [int, frac = ''] = mantissa.split('.') as [string, string | undefined];
  let scale = frac.length - Number(expPart ?? 0);
  let digits = BigInt(int + frac);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits: rate < 0 ? -digits : digits, scale };
}

/** rate x base rounded half away from zero to an integer. */
export function taxAmount(rate: number, base: number): number {
  const { digits, scale } = decimal(rate);
  const num = digits * BigInt(base);
  const den = 10n ** BigInt(scale);
  const neg = num < 0n;
  const abs = neg ? -num : num;
  const q = (2n * abs + den) / (2n * den);
  return Number(neg ? -q : q);
}

export interface Totals {
  subtotal: number;
  shipping: number;
  tax: number;
  grandTotal: number;
  taxLines: TaxLine[];
}

/** Totals of lines at the shipping cost and tax rates; taxLines is empty when tax is 0. */
export function computeTotals(lines: readonly { quantity: number; unitPrice: number }[], shipping: number, rates: readonly TaxRate[]): Totals {
  const subtotal = lines.reduce((s, l) => s + l.quantity * l.unitPrice, 0);
  const taxLines = rates.map((r) => ({ label: r.label, rate: r.rate, amount: taxAmount(r.rate, subtotal + shipping) }));
  const tax = taxLines.reduce((s, t) => s + t.amount, 0);
  return { subtotal, shipping, tax, grandTotal: subtotal + shipping + tax, taxLines: tax === 0 ? [] : taxLines };
}
