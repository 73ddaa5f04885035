import { describe, expect, it } from 'vitest';
import { nativeOfferDoc } from '../../../src/search/documents/builders.js';
import { bodyPool, serializeOps } from '../../../indexer/bulk.js';
import { product, seller, sku } from '../../support/offer-facts.js';

describe('serializeOps', () => {
  it('writes the NDJSON of JSON.stringify for each action and document, past the reused buffer size', () => {
    const big = product({ name: 'x'.repeat(3_000_000) });
    const d = nativeOfferDoc({ sellerId: 3, skuId: 70, price: 1, available: 1 }, sku(), seller(), big, false);
    const ops = [
      { id: 'n:3:70', doc: d },
      { id: 'p:"7"', doc: null },
      { id: 'n:3:70', doc: nativeOfferDoc({ sellerId: 3, skuId: 70, price: 2, available: 1 }, sku(), seller(), product(), false) },
    ];
    const expected =
      ops
        .flatMap((op) =>
          op.doc
            ? [JSON.stringify({ index: { _index: 'ix', _id: op.id } }), JSON.stringify(op.doc)]
            : [JSON.stringify({ delete: { _index: 'ix', _id: op.id } })],
        )
        .join('\n') + '\n';
    const body = serializeOps('ix', ops);
    expect(body.items).toBe(3);
    expect(body.body.equals(Buffer.from(expected))).toBe(true);
    expect(serializeOps('ix', []).body.length).toBe(0);
  });

  it('writes the same bytes into a pooled buffer, reused once released and never while held', () => {
    const ops = [1, 2, 3].map((price) => ({
      id: `n:3:${price}`,
      doc: nativeOfferDoc({ sellerId: 3, skuId: 70, price, available: 1 }, sku(), seller(), product(), false),
    }));
    const pool = bodyPool();
    const copied = serializeOps('ix', ops);
    const first = serializeOps('ix', ops, pool);
    expect(first.body.equals(copied.body)).toBe(true);
    const second = serializeOps('ix', ops.slice(1), pool);
    expect(second.body.buffer).not.toBe(first.body.buffer);
    expect(first.body.equals(copied.body)).toBe(true);
    first.release!();
    const third = serializeOps('ix', ops.slice(2), pool);
    expect(third.body.buffer).toBe(first.body.buffer);
    expect(third.body.equals(serializeOps('ix', ops.slice(2)).body)).toBe(true);
  });

  it('builds a document given by a getter once, when it is written', () => {
    let built = 0;
    const d = nativeOfferDoc({ sellerId: 3, skuId: 70, price: 5, available: 1 }, sku(), seller(), product(), false);
    const op = {
      id: 'n:3:70',
      get doc() {
        built += 1;
        return d;
      },
    };
    expect(built).toBe(0);
    const body = serializeOps('ix', [op]);
    expect(built).toBe(1);
    expect(body.body.toString()).toBe(`${JSON.stringify({ index: { _index: 'ix', _id: 'n:3:70' } })}\n${JSON.stringify(d)}\n`);
  });
});
