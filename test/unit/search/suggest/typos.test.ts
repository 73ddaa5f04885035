import { describe, expect, it } from 'vitest';
import { pairBudget, queryFuzziness, termMatch, typoBudget } from '../../../../src/search/suggest/typos.js';

describe('typo budget', () => {
  it('is 0 under 5 characters, 1 from 5 to 8, 2 from 9', () => {
    expect([1, 4, 5, 8, 9, 30].map(typoBudget)).toEqual([0, 0, 1, 1, 2, 2]);
  });

  it('goes by the longer of the typed term and the name term', () => {
    expect(pairBudget(4, 5)).toBe(1); // "glem" for "golem": a letter left out
    expect(pairBudget(4, 4)).toBe(0);
    expect(pairBudget(9, 7)).toBe(2);
  });

  it('a fuzzy query allows the most typos any name term could be within budget of', () => {
    expect([1, 3, 4, 6, 7, 8, 9, 20].map(queryFuzziness)).toEqual([0, 0, 1, 1, 2, 2, 2, 2]);
  });
});

describe('term match', () => {
  it.each([
    ['charizard', 'charizard', 0, 0],
    ['charzard', 'charizard', 1, 1], // delete
    ['charrizard', 'charizard', 1, 1], // insert
    ['charixard', 'charizard', 1, 1], // replace
    ['chraizard', 'charizard', 1, 1], // swap of neighbours: one typo
    ['glem', 'golem', 1, 1], // 4 typed, a 5-letter word: budget 1
    ['char', 'charizard', null, 0], // a prefix
    ['charz', 'charizard', null, 1], // one typo off the prefix "chari" / "chariz"
    ['lightn', 'lightning', null, 0],
    ['bolt', 'belt', null, null], // 4 letters against 4: no typo allowed
    ['bolt', 'helix', null, null],
    ['xharizard', 'charizard', 1, 1], // the first letter counts as any other
  ])('%s against %s: whole %s, prefix %s', (typed, term, whole, prefix) => {
    expect(termMatch(typed, term)).toEqual({ whole, prefix });
  });

  it('counts code points, not UTF-16 units', () => {
    expect(termMatch('abc😀de', 'abcde')).toEqual({ whole: 1, prefix: 1 });
    expect(termMatch('😀', '😁')).toEqual({ whole: null, prefix: null });
  });
});
