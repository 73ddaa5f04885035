import { describe, expect, it } from 'vitest';
import { cardTable } from '../../../../src/search/suggest/card-table.js';

// The columns keep each card's latest state through growth, replacement, removal and the
// compaction of the sellers' pool, checked against a plain map of the same changes.

describe('the card table', () => {
  it('holds each product once with its latest name, category and sellers', () => {
    const t = cardTable();
    t.put(10, 0, 1, [5, 6]);
    t.put(11, 0, 2, [6]);
    t.put(12, -1, 1, []); // no name: held, a member of nothing
    expect(t.size).toBe(3);
    expect(t.members(0)).toHaveLength(2);
    t.put(10, 1, 2, [7]); // renamed, moved, other seller
    expect(t.members(0)).toHaveLength(1);
    const [slot] = t.members(1);
    expect(t.category(slot!)).toBe(2);
    expect(t.hasSeller(slot!, 7)).toBe(true);
    expect(t.hasSeller(slot!, 5)).toBe(false);
    t.remove(11);
    t.remove(11);
    expect(t.members(0)).toEqual([]);
    expect(t.members(9)).toEqual([]);
    expect(t.size).toBe(2);
  });

  it('agrees with a plain map through 20,000 random changes', () => {
    let seed = 3;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const t = cardTable();
    const want = new Map<number, { name: number; category: number; sellers: number[] }>();
    for (let i = 0; i < 20_000; i++) {
      const id = rnd(3000);
      if (rnd(4) === 0) {
        t.remove(id);
        want.delete(id);
      } else {
        const card = { name: rnd(40) - 1, category: rnd(5), sellers: Array.from({ length: rnd(12) }, () => rnd(200)) };
        t.put(id, card.name, card.category, card.sellers);
        want.set(id, card);
      }
    }
    expect(t.size).toBe(want.size);
    for (let n = 0; n < 40; n++) {
      const held = t
        .members(n)
        .map((slot) => ({ category: t.category(slot), sellers: Array.from({ length: 200 }, (_, s) => s).filter((s) => t.hasSeller(slot, s)) }));
      const expected = [...want.values()]
        .filter((c) => c.name === n)
        .map((c) => ({ category: c.category, sellers: [...new Set(c.sellers)].sort((a, b) => a - b) }));
      const key = (x: { category: number; sellers: number[] }) => `${x.category}:${x.sellers.join(',')}`;
      expect(held.map(key).sort(), `name ${n}`).toEqual(expected.map(key).sort());
    }
  });
});
