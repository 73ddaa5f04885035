import { describe, expect, it } from 'vitest';
import { docId, parseDocId } from '../../../../src/search/documents/model.js';

describe('parseDocId', () => {
  it('gives back what docId built each id from', () => {
    expect(parseDocId(docId.native(7, 1001))).toEqual({ type: 'native', sellerId: 7, skuId: 1001 });
    expect(parseDocId(docId.handoff(55))).toEqual({ type: 'handoff', variantId: 55 });
    expect(parseDocId(docId.product(101))).toEqual({ type: 'product', productId: 101 });
    expect(parseDocId(docId.sku(0))).toEqual({ type: 'sku', skuId: 0 });
    expect(parseDocId(docId.seller(8))).toEqual({ type: 'seller', sellerId: 8 });
    expect(parseDocId(docId.card(-3))).toEqual({ type: 'card', productId: -3 });
  });

  it('refuses ids docId cannot have built', () => {
    for (const id of ['', 'n:7', 'n:7:', 'n:7:x', 'k:1:2', 's:', 's:01', 's:1.5', 's: 1', 'x:1', 'p:1:', 'c:1e3', 'n:1:2:3', 'test:1']) {
      expect(parseDocId(id), id).toBeNull();
    }
  });
});
