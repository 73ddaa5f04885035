import { describe, expect, it } from 'vitest';
import { compareCodePoints, productSortKey, SORT_KEY_NAME_CHARS } from '../../../src/search/text.js';

// The sort key must fit a keyword term (32,766 UTF-8 bytes) whatever the name, and keep ordering
// products by folded name, then productId.

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('productSortKey', () => {
  it('keeps a short name whole', () => {
    expect(productSortKey('Lightning Bolt', 101)).toBe('lightning bolt\u00000000000101');
  });

  it('fits a keyword term for a 40,000-character name, of any script', () => {
    for (const ch of ['a', 'é', '中', '😀']) {
      const key = productSortKey(ch.repeat(40_000), 7);
      expect(bytes(key)).toBeLessThan(32_766);
      expect([...key.split('\u0000')[0]!]).toHaveLength(SORT_KEY_NAME_CHARS);
    }
  });

  it('never splits a surrogate pair', () => {
    const key = productSortKey(`a${'😀'.repeat(SORT_KEY_NAME_CHARS)}`, 1);
    // A lone surrogate would not survive a UTF-8 round trip.
    expect(Buffer.from(key, 'utf8').toString('utf8')).toBe(key);
  });

  it('orders long names by their first characters, then by productId', () => {
    const long = 'x'.repeat(SORT_KEY_NAME_CHARS);
    const keys = [productSortKey(`${long}b`, 1), productSortKey(`${long}a`, 2), productSortKey('w', 3), productSortKey('y', 4)];
    expect([...keys].sort(compareCodePoints)).toEqual([keys[2], keys[0], keys[1], keys[3]]);
  });
});
