import { describe, expect, it } from 'vitest';
import { compareCandidates, correctionOf, displayTerms, matchName, rankNames, type Candidate } from '../../../../src/search/suggest/match.js';
import { nameGrams } from '../../../../src/search/documents/name-grams.js';
import { terms } from '../../../../src/search/text.js';

const match = (q: string, name: string) => matchName(terms(q), terms(name));

describe('matching a name', () => {
  it('folds like keyword: NFKD, marks dropped, case-insensitive', () => {
    expect(match('POKÉMON', 'Pokemon Center')).toMatchObject({ typos: 0, whole: true });
    expect(match('pokemon', 'Pokémon Center')).toMatchObject({ typos: 0, whole: true });
  });

  it('every term but the last is a whole name term within its budget', () => {
    expect(match('lightnig bolt', 'Lightning Bolt')).toMatchObject({ typos: 1, whole: true });
    expect(match('light bolt', 'Lightning Bolt')).toBeNull(); // "light" is no whole term, even though a prefix
    expect(match('bolt lightning', 'Lightning Bolt')).toMatchObject({ typos: 0, whole: true }); // any order
    expect(match('blot x', 'Lightning Bolt')).toBeNull(); // 4 letters against 4: no typo allowed
    expect(match('kashtira glem', 'Kashtira Golem')).toMatchObject({ typos: 1, whole: true }); // against 5: one
  });

  it('the last term is a prefix, or within its budget of one', () => {
    expect(match('lightning b', 'Lightning Bolt')).toEqual({ typos: 0, whole: false, asWords: null });
    expect(match('charz', 'Charizard')).toMatchObject({ typos: 1, whole: false });
    expect(match('chaz', 'Charizard')).toBeNull(); // 4 characters: an exact prefix only
    expect(match('charzard', 'Charizard')).toEqual({ typos: 1, whole: true, asWords: { termIndexes: [0], typos: 1 } });
    expect(match('xharizard', 'Charizard')).toMatchObject({ typos: 1, whole: true }); // the first letter counts as any other
  });

  it('a whole word with as many typos as a prefix match counts as whole', () => {
    expect(match('charm', 'Charm')).toMatchObject({ typos: 0, whole: true });
    expect(match('charm', 'Charmander')).toMatchObject({ typos: 0, whole: false });
  });
});

describe('ranking', () => {
  const c = (name: string, productCount: number, q: string): Candidate => ({ name, productCount, match: match(q, name)! });

  it('fewer typos, then whole words before prefixes, then more products, then name', () => {
    const ranked = rankNames(terms('charm'), [
      ['Charmeleon', 1],
      ['Charizard', 9], // one typo
      ['Charmander', 5],
      ['Charm', 1],
      ['charmander', 5],
    ]);
    expect(ranked.map((r) => r.name)).toEqual(['Charm', 'Charmander', 'charmander', 'Charmeleon', 'Charizard']);
  });

  it('compares by name only when all else ties', () => {
    expect(compareCandidates(c('Abra', 1, 'abra'), c('Abra', 1, 'abra'))).toBe(0);
    expect(compareCandidates(c('Abra', 2, 'ab'), c('Abomasnow', 1, 'ab'))).toBeLessThan(0);
  });
});

describe('correction', () => {
  it('a term the name has twice is spelled from each place', () => {
    expect(correctionOf(rankNames(terms('the lord of the rigns'), [['The Lord of the Rings', 1]]))).toBe('The Lord of the Rings');
  });

  it('each term replaced by its closest name term, as the name writes it', () => {
    const ranked = rankNames(terms('lightnig bolt'), [
      ['Lightning Bolt', 3],
      ['Lightning Helix', 2],
    ]);
    expect(correctionOf(ranked)).toBe('Lightning Bolt');
    expect(correctionOf(rankNames(terms('pokemno'), [['Pokémon Center', 1]]))).toBe('Pokémon');
  });

  it('the fewest typos first, then the name with more products', () => {
    expect(
      correctionOf(
        rankNames(terms('charmender'), [
          ['Charmander', 1],
          ['Charmeleon', 9],
        ]),
      ),
    ).toBe('Charmander');
    expect(correctionOf(rankNames(terms('bolx'), [['Bolt', 1]]))).toBeNull();
  });

  it('none when the last term only matches as a prefix', () => {
    expect(correctionOf(rankNames(terms('charz'), [['Charizard', 3]]))).toBeNull();
  });
});

describe('display terms and grams', () => {
  it('keeps a run of the name as written when it folds to one term', () => {
    expect(displayTerms('Jace, the Mind-Sculptor')).toEqual(['Jace', 'the', 'Mind', 'Sculptor']);
    expect(displayTerms('Pokémon ½ Deck')).toEqual(['Pokémon', '1', '2', 'Deck']);
  });

  it('grams are the distinct prefixes of 4 or more code points', () => {
    expect(nameGrams('ex charizard ex')).toEqual(['char', 'chari', 'chariz', 'chariza', 'charizar', 'charizard']);
    expect(nameGrams('')).toEqual([]);
  });

  it('grams stop at 102 code points, however long the term', () => {
    const grams = nameGrams(`bolt ${'é'.repeat(40_000)}`);
    expect(grams).toHaveLength(1 + 99);
    expect(Array.from(grams[grams.length - 1]!)).toHaveLength(102);
  });
});
