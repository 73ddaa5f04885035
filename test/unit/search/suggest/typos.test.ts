import { describe, expect, it } from 'vitest';
import { termDistance, typoBudget } from '../../../../src/search/suggest/typos.js';

describe('typo budget', () => {
  it('is 0 under 5 characters, 1 from 5 to 8, 2 from 9', () => {
    expect([1, 4, 5, 8, 9, 30].map(typoBudget)).toEqual([0, 0, 1, 1, 2, 2]);
  });
});

describe('term distance', () => {
  it.each([
    ['charizard', 'charizard', 0, 0],
    ['charzard', 'charizard', 1, 1], // delete
    ['charrizard', 'charizard', 1, 1], // insert
    ['charixard', 'charizard', 1, 1], // replace
    ['chraizard', 'charizard', 1, 1], // swap of neighbours: one typo
    ['char', 'charizard', 5, 0], // a prefix
    ['charz', 'charizard', 4, 1], // one typo off the prefix "chari" / "chariz"
    ['lightn', 'lightning', 3, 0],
    ['bolt', 'helix', 4, 3],
  ])('%s to %s: %i whole, %i to a prefix', (query, term, whole, prefix) => {
    expect(termDistance(query, term)).toEqual({ whole, prefix });
  });

  it('counts code points, not UTF-16 units', () => {
    expect(termDistance('a😀b', 'ab')).toEqual({ whole: 1, prefix: 1 });
    expect(termDistance('😀', '😁')).toEqual({ whole: 1, prefix: 1 });
  });
});
