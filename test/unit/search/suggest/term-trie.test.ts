import { describe, expect, it } from 'vitest';
import { termsWithin, termTrie } from '../../../../src/search/suggest/term-trie.js';
import { termMatch } from '../../../../src/search/suggest/typos.js';
import { terms } from '../../../../src/search/text.js';
import { rankedCardNames } from '../../../../tools/sample/names.js';

// The trie walk finds exactly the terms termMatch accepts, with the same typos, while visiting
// only the nodes within reach.

/** termMatch over every term: what the walk must answer. */
function everyTerm(all: readonly string[], typed: string, asLast: boolean) {
  return all.flatMap((t, term) => {
    const m = t === typed ? { whole: 0, prefix: 0 } : termMatch(typed, t);
    const prefix = t.startsWith(typed) ? 0 : m.prefix;
    return m.whole !== null || (asLast && prefix !== null) ? [{ term, whole: m.whole, prefix: asLast ? prefix : m.prefix }] : [];
  });
}

const byTerm = <T extends { term: number }>(hits: T[]) => [...hits].sort((a, b) => a.term - b.term);

describe('the term trie', () => {
  it('sorts the distinct terms once each', () => {
    expect(termTrie(['charm', 'char', 'charizard', 'char']).terms).toEqual(['char', 'charizard', 'charm']);
  });

  it('finds a whole word within its budget, a swap as one typo, and nothing beyond', () => {
    const trie = termTrie(['charizard', 'charmander', 'charm', 'bolt', 'helix']);
    const words = (typed: string) => termsWithin(trie, typed, false).map((h) => [trie.terms[h.term], h.whole]);
    expect(words('charzard')).toEqual([['charizard', 1]]); // 8 letters, one left out
    expect(words('chraizard')).toEqual([['charizard', 1]]); // a swap of neighbours
    expect(words('chrizrad')).toEqual([['charizard', 2]]);
    expect(words('blot')).toEqual([]); // under 5 letters: no budget
    expect(words('bolt')).toEqual([['bolt', 0]]);
  });

  it('finds, for the last term, every term it is within budget of a prefix of', () => {
    const trie = termTrie(['charizard', 'charmander', 'charm', 'chaos', 'bolt']);
    const last = (typed: string) => byTerm(termsWithin(trie, typed, true)).map((h) => [trie.terms[h.term], h.prefix]);
    expect(last('cha')).toEqual([
      ['chaos', 0],
      ['charizard', 0],
      ['charm', 0],
      ['charmander', 0],
    ]);
    expect(last('charz')).toEqual([
      ['charizard', 1],
      ['charm', 1],
      ['charmander', 1],
    ]);
  });

  it('answers exactly what termMatch over every term answers, on the sample vocabulary', () => {
    const all = [
      ...new Set(
        rankedCardNames()
          .slice(0, 4000)
          .flatMap((n) => terms(n.name)),
      ),
    ];
    const trie = termTrie(all);
    let seed = 11;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const typedTerms = ['a', 'zz', 'ch', 'the', 'drag', 'lightn', 'xyzzy', 'q'];
    for (let k = 0; k < 150; k++) {
      const t = trie.terms[rnd(trie.terms.length)]!;
      const at = rnd(t.length);
      typedTerms.push(
        [t.slice(0, at) + 'e' + t.slice(at), t.slice(0, at) + t.slice(at + 1), t.slice(0, at) + 'q' + t.slice(at + 1), t.slice(0, Math.max(1, at))][
          k % 4
        ]!,
        t.slice(0, at - 1) + t.slice(at, at + 1) + t.slice(at - 1, at) + t.slice(at + 1),
      );
    }
    let found = 0;
    for (const typed of typedTerms.filter((t) => t.length > 0)) {
      for (const asLast of [false, true]) {
        const want = everyTerm(trie.terms, typed, asLast);
        found += want.length;
        expect(byTerm(termsWithin(trie, typed, asLast)), `${typed} ${asLast}`).toEqual(want);
      }
    }
    expect(found).toBeGreaterThan(1000);
  }, 60_000);
});
