import { describe, expect, it } from 'vitest';
import { computeTotals, taxAmount } from '../../../src/orders/totals.js';

describe('tax amounts: rate x base, half away from zero, exact in decimal', () => {
  it.each([
    [0.15, 1549, 232], // 232.35
    [0.15, 2049, 307], // 307.35
    [0.05, 2449, 122], // 122.45
    [0.07, 2449, 171], // 171.43
    [0.15, 4297, 645], // 644.55
    [0.145, 100, 15], // 14.5 -> 15, though the double product is 14.499999999999998
    [0.13, 50, 7], // 6.5 -> 7
    [0.14975, 1000, 150], // 149.75
    [0.5, 1, 1], // 0.5 -> 1
    [0, 1000, 0],
    [1, 1234, 1234],
    [1e-7, 5_000_000, 1], // 0.5 -> 1, exponent form
  ])('%s x %s = %s', (rate, base, amount) => expect(taxAmount(rate, base)).toBe(amount));

  it('totals: the tax block is empty when tax is 0', () => {
    expect(computeTotals([{ quantity: 2, unitPrice: 100 }], 50, [{ label: 'Exempt', rate: 0 }])).toEqual({
      subtotal: 200,
      shipping: 50,
      tax: 0,
      grandTotal: 250,
      taxLines: [],
    });
    expect(
      computeTotals([{ quantity: 2, unitPrice: 100 }], 50, [
        { label: 'GST', rate: 0.05 },
        { label: 'QST', rate: 0.09975 },
      ]),
    ).toEqual({
      subtotal: 200,
      shipping: 50,
      tax: 38,
      grandTotal: 288,
      taxLines: [
        { label: 'GST', rate: 0.05, amount: 13 },
        { label: 'QST', rate: 0.09975, amount: 25 },
      ], // 12.5 -> 13; 24.9375 -> 25
    });
  });
});
