import { describe, expect, it } from 'vitest';
import { addPair, addVariant, emptyTargets, targetChunks } from '../../../indexer/targets.js';
import type { Chunk } from '../../../indexer/facts.js';

// A pair whose every change in the batch was offer-only (a repricing) is rewritten without its
// cards; one change that can move a card (stock, delete, a hold) brings them back, in either order.

async function collect(t: ReturnType<typeof emptyTargets>, size = 2000): Promise<Chunk[]> {
  const out: Chunk[] = [];
  // No platform switch: targetChunks reads nothing.
  for await (const c of targetChunks(undefined as never, t, size)) out.push(c);
  return out;
}

describe('offer-only pairs', () => {
  it('leave a chunk of only full changes without a card scope (every offer brings its cards)', async () => {
    const t = emptyTargets();
    addPair(t, { sellerId: 1, skuId: 10 });
    addPair(t, { sellerId: 2, skuId: 11 }, false);
    expect(await collect(t)).toEqual([
      {
        kind: 'native',
        pairs: [
          { sellerId: 1, skuId: 10 },
          { sellerId: 2, skuId: 11 },
        ],
      },
    ]);
  });

  it('narrow the chunk to the pairs whose cards may have changed', async () => {
    const t = emptyTargets();
    addPair(t, { sellerId: 1, skuId: 10 }, true);
    addPair(t, { sellerId: 2, skuId: 11 }, false);
    addPair(t, { sellerId: 3, skuId: 12 }, true);
    const [chunk] = await collect(t);
    expect(chunk).toEqual({
      kind: 'native',
      pairs: [
        { sellerId: 1, skuId: 10 },
        { sellerId: 2, skuId: 11 },
        { sellerId: 3, skuId: 12 },
      ],
      cardScope: new Set(['n:2:11']),
    });
  });

  it('bring no cards when every change was offer-only', async () => {
    const t = emptyTargets();
    addPair(t, { sellerId: 1, skuId: 10 }, true);
    addPair(t, { sellerId: 1, skuId: 10 }, true);
    const [chunk] = await collect(t);
    expect(chunk).toMatchObject({ kind: 'native', cardScope: new Set() });
  });

  it('count for their cards once any change of the batch could move one, before or after a repricing', async () => {
    const t = emptyTargets();
    addPair(t, { sellerId: 1, skuId: 10 }, true);
    addPair(t, { sellerId: 1, skuId: 10 }, false); // then sold out
    addPair(t, { sellerId: 2, skuId: 11 }, false); // sold out
    addPair(t, { sellerId: 2, skuId: 11 }, true); // then repriced
    expect(t.offerOnly.size).toBe(0);
    const [chunk] = await collect(t);
    expect(chunk).not.toHaveProperty('cardScope');
  });

  it('are scoped per chunk', async () => {
    const t = emptyTargets();
    addPair(t, { sellerId: 1, skuId: 10 }, true);
    addPair(t, { sellerId: 1, skuId: 11 }, true);
    addPair(t, { sellerId: 1, skuId: 12 }, false);
    const chunks = await collect(t, 2);
    expect(chunks.map((c) => (c.kind === 'native' ? [c.pairs.map((p) => p.skuId), c.cardScope && [...c.cardScope]] : null))).toEqual([
      [[10, 11], []],
      [[12], undefined],
    ]);
  });

  it('work the same for handoff variants, apart from pairs', async () => {
    const t = emptyTargets();
    addVariant(t, 55, true);
    addVariant(t, 56, true);
    addVariant(t, 56); // its store changed too
    addPair(t, { sellerId: 1, skuId: 10 }, true);
    expect(await collect(t)).toEqual([
      { kind: 'native', pairs: [{ sellerId: 1, skuId: 10 }], cardScope: new Set() },
      { kind: 'handoff', variantIds: [55, 56], cardScope: new Set(['h:56']) },
    ]);
  });
});
