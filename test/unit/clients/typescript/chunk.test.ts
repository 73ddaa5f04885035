import { describe, expect, it } from 'vitest';
import { chunk } from '../../../../clients/typescript/src/chunk.js';

describe('chunk', () => {
  it('splits into runs of at most the size, in order, the last one short', () => {
    const items = Array.from({ length: 2501 }, (_, i) => i);
    const parts = chunk(items, 1000);
    expect(parts.map((p) => p.length)).toEqual([1000, 1000, 501]);
    expect(parts.flat()).toEqual(items);
  });

  it('gives no chunk for no items and one for exactly the size', () => {
    expect(chunk([], 500)).toEqual([]);
    expect(chunk([1, 2], 2)).toEqual([[1, 2]]);
  });

  it('refuses a size that is not a positive integer', () => {
    expect(() => chunk([1], 0)).toThrow(RangeError);
    expect(() => chunk([1], 1.5)).toThrow(RangeError);
  });
});
