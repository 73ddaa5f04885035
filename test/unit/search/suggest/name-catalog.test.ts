import { describe, expect, it } from 'vitest';
import { matchName } from '../../../../src/search/suggest/match.js';
import { matchingNames, nameCatalog } from '../../../../src/search/suggest/name-catalog.js';
import { terms } from '../../../../src/search/text.js';
import { rankedCardNames } from '../../../../tools/sample/names.js';

// The fallback's name list finds exactly the names matchName accepts, through their distinct terms.

const rows = (names: string[]) => names.map((name, i) => ({ name, productIds: [i * 10 + 1, i * 10 + 2] }));
/** matchName over every name: what the catalog must answer. */
const everyName = (names: readonly string[], q: string) => names.flatMap((n, i) => (matchName(terms(q), terms(n)) === null ? [] : [i]));

describe('the name catalog', () => {
  const names = [
    'Charizard',
    'Charizard ex',
    'Charmander',
    'Charmeleon',
    'Dark Charizard',
    'Lightning Bolt',
    'Lightning Helix',
    'Pokémon Center',
    'Ｃｈａｒｍ',
  ];
  const catalog = nameCatalog(rows(names));

  it('keeps each name with its products, and each distinct folded term once', () => {
    expect(catalog.names).toEqual(names);
    expect(catalog.productIds[2]).toEqual([21, 22]);
    expect(catalog.products).toBe(2 * names.length);
    expect(catalog.byTerm.get('charizard')).toEqual([0, 1, 4]);
    expect(catalog.byTerm.get('pokemon')).toEqual([7]);
    expect(catalog.byTerm.get('charm')).toEqual([8]);
  });

  it('finds the names a prefix, a typo, several terms and folding match', () => {
    const found = (q: string) => matchingNames(catalog, terms(q)).map((i) => names[i]);
    expect(found('charz')).toEqual(['Charizard', 'Charizard ex', 'Charmander', 'Charmeleon', 'Dark Charizard', 'Ｃｈａｒｍ']); // charm: one typo
    expect(found('charzi')).toEqual(['Charizard', 'Charizard ex', 'Dark Charizard']);
    expect(found('char')).toEqual(['Charizard', 'Charizard ex', 'Charmander', 'Charmeleon', 'Dark Charizard', 'Ｃｈａｒｍ']);
    expect(found('lightnig h')).toEqual(['Lightning Helix']);
    expect(found('dark chrizard')).toEqual(['Dark Charizard']);
    expect(found('POKÉMON cen')).toEqual(['Pokémon Center']);
    expect(found('chaz')).toEqual([]);
    expect(found('')).toEqual([]);
  });

  it('answers exactly what matchName over every name answers, on the sample vocabulary', () => {
    const vocabulary = rankedCardNames()
      .slice(0, 2500)
      .map((n) => n.name);
    const big = nameCatalog(rows(vocabulary));
    // Prefixes, whole names, and one typo of each kind (insert, delete, replace, swap) in a word.
    let seed = 7;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const queries: string[] = ['a', 'zz', 'ch', 'the', 'drag', 'lightn', 'xyzzy'];
    for (let k = 0; k < 60; k++) {
      const ts = terms(vocabulary[rnd(vocabulary.length)]!);
      const w = rnd(ts.length);
      const t = ts[w]!;
      const at = 1 + rnd(Math.max(1, t.length - 1));
      const typo = [
        t.slice(0, at) + 'e' + t.slice(at),
        t.slice(0, at) + t.slice(at + 1),
        t.slice(0, at) + 'q' + t.slice(at + 1),
        t.slice(0, at - 1) + t.slice(at, at + 1) + t.slice(at - 1, at) + t.slice(at + 1),
      ][k % 4]!;
      const typed = ts.map((x, i) => (i === w ? typo : x));
      queries.push(typed.join(' '), [...ts.slice(0, -1), ts.at(-1)!.slice(0, 3 + rnd(4))].join(' '));
    }
    let nonEmpty = 0;
    for (const q of queries) {
      const want = everyName(vocabulary, q);
      if (want.length > 0) nonEmpty++;
      expect(matchingNames(big, terms(q)), q).toEqual(want);
    }
    expect(nonEmpty).toBeGreaterThan(100);
  }, 60_000);
});
