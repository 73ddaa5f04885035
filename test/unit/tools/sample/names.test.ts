import { beforeAll, describe, expect, it } from 'vitest';
import { product, sampleSizes, type SampleSizes } from '../../../../tools/sample/model.js';
import { cardNameCount, MAX_CARD_NAMES, popularRank, rankedCardNames } from '../../../../tools/sample/names.js';
import { GAMES } from '../../../../tools/sample/vocab.js';

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/** Products per card name (sealed products left out), computed from the model without any listing. */
function namesOf(seed: number, sizes: SampleSizes): Map<string, number> {
  const counts = new Map<string, number>();
  for (let id = 1; id <= sizes.products; id++) {
    const p = product(seed, sizes, id);
    if (p.rarity !== null) counts.set(p.name!, (counts.get(p.name!) ?? 0) + 1);
  }
  return counts;
}

// A quarter of a million products and their names: seconds on a loaded machine.
const ROOM = { timeout: 60_000 };

describe('sample card names at 2,000,000 listings', ROOM, () => {
  const sizes = sampleSizes(2_000_000);
  let counts: Map<string, number>;
  let names: string[];
  beforeAll(() => {
    counts = namesOf(1, sizes);
    names = [...counts.keys()];
  }, ROOM.timeout);

  it('holds at least 20,000 distinct card names over its 250,000 products', () => {
    expect(sizes.products).toBe(250_000);
    expect(counts.size).toBeGreaterThanOrEqual(20_000);
    expect(counts.size).toBe(cardNameCount(sizes.products));
  });

  it('has near neighbours: shared prefixes, shared words, names one or two edits apart', () => {
    for (const n of ['Charizard', 'Charmander', 'Charmeleon', 'Charizard ex', 'Lightning Bolt', 'Lightning Helix']) expect(counts.has(n), n).toBe(true);
    expect(names.filter((n) => n.startsWith('Char')).length).toBeGreaterThan(20);
    expect(names.filter((n) => n.startsWith('Lightning ')).length).toBeGreaterThan(10);
    // Names within two edits share a one-deletion key (one within one edit always does).
    const byKey = new Map<string, Set<string>>();
    for (const n of names) {
      const f = fold(n);
      for (const key of [f, ...Array.from(f, (_, i) => f.slice(0, i) + f.slice(i + 1))]) {
        const set = byKey.get(key) ?? new Set<string>();
        set.add(n);
        byKey.set(key, set);
      }
    }
    const close = new Set([...byKey.values()].filter((s) => s.size > 1).flatMap((s) => [...s]));
    expect(close.size / names.length).toBeGreaterThan(0.05);
    // Multi-word names mostly share their first word with another name (Lightning Bolt, Lightning Helix).
    const firstWords = new Map<string, number>();
    const multi = names.filter((n) => n.includes(' '));
    for (const n of multi) firstWords.set(n.split(' ')[0]!, (firstWords.get(n.split(' ')[0]!) ?? 0) + 1);
    expect(multi.filter((n) => firstWords.get(n.split(' ')[0]!)! > 1).length / multi.length).toBeGreaterThan(0.8);
  });

  it('is skewed: a few names carry many products, the long tail few', () => {
    const perName = [...counts.values()].sort((a, b) => b - a);
    const cards = perName.reduce((a, b) => a + b, 0);
    const top = perName.slice(0, Math.ceil(perName.length / 100)).reduce((a, b) => a + b, 0);
    expect(top / cards).toBeGreaterThan(0.2); // the top 1% of names: over a fifth of the products
    expect(perName[Math.floor(perName.length / 2)]).toBeLessThanOrEqual(5);
    expect(perName[0]).toBeGreaterThan(100 * perName[Math.floor(perName.length / 2)]!);
    expect(counts.get('Charizard')).toBeGreaterThan(300);
  });

  it('keeps display spelling: capitals, diacritics, apostrophes', () => {
    expect(names.every((n) => /^[\p{Lu}\p{N}]/u.test(n))).toBe(true);
    expect(names.filter((n) => /\p{M}/u.test(n.normalize('NFKD'))).length).toBeGreaterThan(100); // Dûnwood, Éomer, Poké Ball
    expect(names.some((n) => /[ÆØ]/.test(n))).toBe(true);
    expect(names.filter((n) => n.includes("'")).length).toBeGreaterThan(100);
  });
});

describe('sample card names by size and seed', ROOM, () => {
  it('grow with the sample: a small one holds fewer names, each one of the bigger one', () => {
    const small = namesOf(1, sampleSizes(800));
    const medium = namesOf(1, sampleSizes(200_000));
    expect(small.size).toBe(cardNameCount(100));
    expect(medium.size).toBe(cardNameCount(25_000));
    expect(small.size).toBeLessThan(medium.size);
    expect(medium.size).toBeLessThan(20_000);
    for (const n of small.keys()) expect(medium.has(n), n).toBe(true);
    expect(small.has('Charizard') && small.has('Lightning Bolt')).toBe(true);
  });

  it('are the same for the same seed; another seed gives products other names from the same vocabulary', () => {
    const sizes = sampleSizes(40_000);
    const a = Array.from({ length: sizes.products }, (_, i) => product(7, sizes, i + 1).name);
    expect(Array.from({ length: sizes.products }, (_, i) => product(7, sizes, i + 1).name)).toEqual(a);
    const b = Array.from({ length: sizes.products }, (_, i) => product(8, sizes, i + 1).name);
    expect(b).not.toEqual(a);
    expect(new Set(namesOf(8, sizes).keys())).toEqual(new Set(namesOf(7, sizes).keys()));
  });

  it('draw ranks by popularity within the vocabulary', () => {
    expect(popularRank(0, 1000)).toBe(0);
    expect(popularRank(0.999999, 1000)).toBe(999);
    expect(popularRank(0.5, 1000)).toBeLessThan(200); // half the draws land in the top fifth
  });

  it('compose enough names for every game to keep its weight up to the largest vocabulary', () => {
    const ranked = rankedCardNames();
    expect(ranked).toHaveLength(MAX_CARD_NAMES);
    expect(new Set(ranked.map((c) => c.name)).size).toBe(MAX_CARD_NAMES);
    const total = GAMES.reduce((s, g) => s + g.weight, 0);
    for (const g of GAMES) {
      const share = ranked.filter((c) => c.game === g).length / MAX_CARD_NAMES;
      expect(Math.abs(share - g.weight / total), g.category).toBeLessThan(0.01);
    }
  });
});
