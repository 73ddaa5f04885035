import { describe, expect, it } from 'vitest';
import { SPLIT_LOOKUP_AT, lookupIdParts, lookupIds } from '../../../../src/search/queries/lookup.js';

describe('cart lookup ids', () => {
  it('names each pair’s offer, sku and seller once', () => {
    expect(
      lookupIds([
        { sellerId: 1, skuId: 10 },
        { sellerId: 1, skuId: 11 },
        { sellerId: 2, skuId: 10 },
      ]),
    ).toEqual(['n:1:10', 'k:10', 's:1', 'n:1:11', 'k:11', 'n:2:10', 's:2']);
  });

  it('a small cart is one request; a large one splits into its offers and the rest, every id exactly once', () => {
    const small = lookupIds([{ sellerId: 1, skuId: 10 }]);
    expect(lookupIdParts(small)).toEqual([small]);
    const lines = Array.from({ length: 500 }, (_, i) => ({ sellerId: 1 + (i % 7), skuId: 1000 + i }));
    const ids = lookupIds(lines);
    expect(ids.length).toBeGreaterThanOrEqual(SPLIT_LOOKUP_AT);
    const [offers, rest] = lookupIdParts(ids);
    expect(offers!.every((id) => id.startsWith('n:'))).toBe(true);
    expect(offers).toHaveLength(500);
    expect(rest!.some((id) => id.startsWith('n:'))).toBe(false);
    expect([...offers!, ...rest!].sort()).toEqual([...ids].sort());
  });
});
