import { describe, expect, it } from 'vitest';
import { suggestQuerySchema, type SuggestQuery, type Suggestions } from '../../../../src/contract/buyer.js';
import { cardCatalog, type CatalogCard } from '../../../../src/search/suggest/card-catalog.js';
import { compareCandidates, correctionOf, rankNames } from '../../../../src/search/suggest/match.js';
import { COUNTED_NAMES } from '../../../../src/search/queries/suggest.js';
import { terms } from '../../../../src/search/text.js';
import { rankedCardNames } from '../../../../tools/sample/names.js';

// Suggestions from the cards in memory: the index path's rule over every card, the scope and the
// counts /search's, and each card's latest state only.

const q = (raw: Record<string, string>): SuggestQuery => suggestQuerySchema.parse(raw);

/** The rule applied to every card, one by one: what the catalog must answer. */
function oracle(cards: readonly CatalogCard[], query: SuggestQuery): Suggestions {
  const scoped = cards.filter(
    (c) =>
      c.name !== null &&
      (query.category === undefined || c.category === query.category) &&
      (query.sellerCode === undefined || c.sellerCodes.includes(query.sellerCode)),
  );
  const listed = (words: string[]) => scoped.filter((c) => words.every((w) => terms(c.name!).includes(w))).length;
  const own = new Map<string, number>();
  for (const c of scoped) own.set(c.name!, (own.get(c.name!) ?? 0) + 1);
  const qTerms = terms(query.q);
  const ranked = rankNames(qTerms, own);
  const counted = ranked
    .slice(0, COUNTED_NAMES)
    .map((c) => ({ ...c, productCount: listed(terms(c.name)) }))
    .sort(compareCandidates);
  return {
    completions: counted.slice(0, query.limit).map((c) => ({ text: c.name, productCount: c.productCount })),
    correction: qTerms.length === 0 || listed(qTerms) > 0 ? null : correctionOf(ranked),
  };
}

const card = (productId: number, name: string | null, category: string | null = 'Pokémon', sellerCodes: string[] = ['S1']): CatalogCard => ({
  productId,
  name,
  category,
  sellerCodes,
});

describe('the card catalog', () => {
  const cards = [
    card(1, 'Charizard'),
    card(2, 'Charizard'),
    card(3, 'Charizard ex', 'Pokémon', ['S2']),
    card(4, 'Dark Charizard', 'Pokémon', ['S1', 'S2']),
    card(5, 'Charmander'),
    card(6, 'Lightning Bolt', 'Magic'),
    card(7, 'Lightning Helix', 'Magic', ['S2']),
  ];

  it('counts what /search?keyword=<name> lists: every card whose name has all its terms', () => {
    const c = cardCatalog(cards);
    expect(c.suggest(q({ q: 'chariz' }))).toEqual({
      completions: [
        { text: 'Charizard', productCount: 4 }, // Charizard x2, Charizard ex, Dark Charizard
        { text: 'Charizard ex', productCount: 1 },
        { text: 'Dark Charizard', productCount: 1 },
      ],
      correction: null,
    });
  });

  it('keeps to the scope: a category, a seller showing an offer', () => {
    const c = cardCatalog(cards);
    expect(c.suggest(q({ q: 'charizard', sellerCode: 'S2' })).completions).toEqual([
      { text: 'Charizard ex', productCount: 1 },
      { text: 'Dark Charizard', productCount: 1 },
    ]);
    expect(c.suggest(q({ q: 'light', category: 'Magic', sellerCode: 'S1' })).completions).toEqual([{ text: 'Lightning Bolt', productCount: 1 }]);
    expect(c.suggest(q({ q: 'light', category: 'Pokémon' })).completions).toEqual([]);
  });

  it('corrects a keyword that lists nothing, and not one that lists something', () => {
    const c = cardCatalog(cards);
    expect(c.suggest(q({ q: 'charzard' })).correction).toBe('Charizard');
    expect(c.suggest(q({ q: 'lightnig bolt' })).correction).toBe('Lightning Bolt');
    expect(c.suggest(q({ q: 'charizard' })).correction).toBeNull();
    expect(c.suggest(q({ q: 'zzzzzz' }))).toEqual({ completions: [], correction: null });
  });

  it('follows each card to its latest state: a new name, a moved seller, a card gone', () => {
    const c = cardCatalog(cards);
    c.put(card(8, 'Charcadet'));
    const texts = (typed: string) => c.suggest(q({ q: typed })).completions.map((x) => x.text);
    expect(texts('charca')).toEqual(['Charcadet', 'Charmander']); // the exact prefix before one typo
    c.put(card(5, 'Charmander', 'Pokémon', ['S2'])); // S1 left it
    expect(c.suggest(q({ q: 'charmander', sellerCode: 'S1' })).completions).toEqual([]);
    expect(c.suggest(q({ q: 'charmander', sellerCode: 'S2' })).completions).toEqual([{ text: 'Charmander', productCount: 1 }]);
    c.remove(8);
    c.remove(8); // twice: nothing more
    expect(texts('charca')).toEqual(['Charmander']);
    expect(c.size).toBe(7);
    c.put(card(1, 'Lightning Bolt', 'Magic')); // renamed
    expect(c.suggest(q({ q: 'charizard' })).completions[0]).toEqual({ text: 'Charizard', productCount: 3 });
  });

  it('answers as the rule over every card does, on the sample vocabulary with churn', () => {
    let seed = 5;
    const rnd = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const vocabulary = rankedCardNames()
      .slice(0, 1500)
      .map((n) => n.name);
    const held = new Map<number, CatalogCard>();
    const c = cardCatalog();
    const change = () => {
      const id = 1 + rnd(3000);
      if (rnd(5) === 0) {
        held.delete(id);
        c.remove(id);
        return;
      }
      // Popular names carry more cards, as in the sample.
      const name = vocabulary[Math.min(rnd(vocabulary.length), rnd(vocabulary.length))]!;
      const next = card(
        id,
        rnd(50) === 0 ? null : name,
        ['Pokémon', 'Magic', null][rnd(3)]!,
        ['S1', 'S2', 'S3'].filter(() => rnd(2) === 0),
      );
      held.set(id, next);
      c.put(next);
    };
    for (let i = 0; i < 4000; i++) change();
    let answered = 0;
    for (let k = 0; k < 120; k++) {
      for (let i = 0; i < 20; i++) change();
      const ts = terms(vocabulary[rnd(vocabulary.length)]!);
      const t = ts.at(-1)!;
      const at = 1 + rnd(Math.max(1, t.length - 1));
      const typed = [t.slice(0, 3 + rnd(3)), t.slice(0, at) + t.slice(at + 1), t.slice(0, at) + 'x' + t.slice(at + 1), t][k % 4]!;
      const raw: Record<string, string> = { q: [...ts.slice(0, -1), typed].join(' ') };
      if (k % 3 === 1) raw.category = 'Magic';
      if (k % 5 === 2) raw.sellerCode = 'S2';
      const want = oracle([...held.values()], q(raw));
      if (want.completions.length > 0) answered++;
      expect(c.suggest(q(raw)), JSON.stringify(raw)).toEqual(want);
    }
    expect(answered).toBeGreaterThan(40);
  }, 60_000);
});
