import { describe, expect, it } from 'vitest';
import { cardValues, comboValues, DIMS, SEP, type CardGroup, type Dim } from '../../../../src/search/documents/offer-groups.js';

describe('comboValues', () => {
  it('gives the sorted distinct tuples of many groups as of few (past the scan and small-card limits)', () => {
    const group = (i: number): CardGroup => ({
      skuId: i,
      storeKey: `n:${i % 90}`,
      lane: 'native',
      checkoutMode: i % 7 === 0 ? 'manual' : 'express',
      sellerCode: `s${i % 90}`,
      sellerFacet: `s${i % 90}\u0000Store ${i % 90}`,
      condition: i % 11 === 0 ? null : `C${i % 5}`,
      language: `L${i % 40}`,
      finish: i % 3 === 0 ? null : 'Foil',
      isSealed: false,
    });
    const many = Array.from({ length: 300 }, (_, i) => group(i));
    const want = direct(many);
    expect(comboValues(many)).toEqual(want);
    expect(Object.keys(comboValues(many))).toEqual(Object.keys(want).sort((a, b) => comboOrder(a) - comboOrder(b)));
    // The same groups in another order, and a small card, give the same as a fresh computation.
    expect(comboValues([...many].reverse())).toEqual(want);
    expect(comboValues(many.slice(0, 3))).toEqual(comboValues([many[2]!, many[0]!, many[1]!]));
  });

  const group = (over: Partial<CardGroup>): CardGroup => ({
    skuId: 1,
    storeKey: 'n:1',
    lane: 'native',
    checkoutMode: 'express',
    sellerCode: 'a',
    sellerFacet: 'a\u0000A',
    condition: 'Near Mint',
    language: 'English',
    finish: 'Foil',
    isSealed: false,
    ...over,
  });

  it('orders tuples as their joined strings when a value is a prefix of another, and by code units', () => {
    // "Near" < "Near Mint" < "Near-Mint" as values, and so as tuples whatever follows them; a
    // seller code that prefixes another ("ab" / "ab-c" / "a") sorts by the code first; an astral
    // character (surrogate pair, code unit 0xD83D) sorts before U+FFFF and after U+00D8.
    const values = {
      condition: ['Near Mint', 'Near', 'Near-Mint', '', 'N', 'Ø', '\uffff', '😀', 'Z'],
      language: ['English', 'Eng', 'English (US)', 'Ελληνικά', 'E'],
      finish: [null, 'Foil', 'Foil Etched', 'F'],
      seller: [
        ['ab', 'Zed'],
        ['ab-c', 'Alpha'],
        ['a', 'Zulu'],
        ['ab', 'Zed Two'],
        ['abc', ''],
      ],
    };
    const groups: CardGroup[] = [];
    let i = 0;
    for (const condition of values.condition)
      for (const language of values.language)
        for (const finish of values.finish) {
          const [code, name] = values.seller[i % values.seller.length]!;
          const checkoutMode = i % 3 === 0 ? 'manual' : 'express';
          groups.push(group({ skuId: i++, condition, language, finish, checkoutMode, sellerCode: code!, sellerFacet: `${code}\u0000${name}` }));
        }
    // Arrival order does not matter: the same tuples from the groups reversed and interleaved.
    const want = direct(groups);
    expect(comboValues(groups)).toEqual(want);
    expect(comboValues([...groups].reverse())).toEqual(want);
    expect(comboValues(groups.filter((_, j) => j % 2).concat(groups.filter((_, j) => !(j % 2))))).toEqual(want);
    expect(want.x_cl).toContain(`Near${SEP}English`);
    expect(want.x_cl!.indexOf(`Near${SEP}English`)).toBeLessThan(want.x_cl!.indexOf(`Near Mint${SEP}Eng`));
    // Each dimension's distinct values, sorted by code units (the card's facet fields).
    const { values: got } = cardValues(groups);
    expect(got[0]).toEqual([...new Set(values.condition)].sort());
    expect(got[0]!.indexOf('😀')).toBeLessThan(got[0]!.indexOf('\uffff'));
    expect(got[2]).toEqual(['F', 'Foil', 'Foil Etched']);
    expect(got[4]).toEqual(['a\u0000Zulu', 'ab\u0000Zed', 'ab\u0000Zed Two', 'ab-c\u0000Alpha', 'abc\u0000']);
  });

  it('gives the same tuples when three dimensions have over a thousand values each (past 31-bit tuple numbers)', () => {
    // 1,300^3 tuple numbers do not fit 31 bits: the combinations of c, l and f take the text path.
    const groups = Array.from({ length: 1300 }, (_, i) =>
      group({ skuId: i, condition: `c${(i * 7) % 1300}`, language: `l${(i * 11) % 1300}`, finish: `f${1299 - i}`, sellerFacet: `s${i % 50}\u0000S` }),
    );
    expect(comboValues(groups)).toEqual(direct(groups));
  });
});

/** The combination fields computed directly: every group's joined tuples, distinct, sorted as strings. */
function direct(groups: readonly CardGroup[]): Record<string, string[]> {
  const expected: Record<string, Set<string>> = {};
  for (const g of groups) {
    for (const c of comboSets) {
      const vals = c.map((d) => ({ c: g.condition, l: g.language, f: g.finish, m: g.checkoutMode, s: g.sellerFacet })[d]);
      if (vals.some((v) => v === null)) continue;
      (expected[`x_${c.join('')}`] ??= new Set()).add(vals.join(SEP));
    }
  }
  const sorted = Object.entries(expected).sort(([a], [b]) => comboOrder(a) - comboOrder(b));
  return Object.fromEntries(sorted.map(([k, v]) => [k, [...v].sort()]));
}

const comboSets: Dim[][] = [];
for (const size of [2, 3]) {
  for (let mask = 0; mask < 32; mask++) {
    const dims = DIMS.filter((_, i) => mask & (1 << i));
    if (dims.length === size) comboSets.push(dims);
  }
}
const comboOrder = (field: string) => comboSets.findIndex((c) => `x_${c.join('')}` === field);
