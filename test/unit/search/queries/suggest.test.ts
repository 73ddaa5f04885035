import { describe, expect, it } from 'vitest';
import { suggestQuerySchema } from '../../../../src/contract/buyer.js';
import { candidatesOf, countsOf, suggestCandidatesBody, suggestCountsBody, suggestionsOf } from '../../../../src/search/queries/suggest.js';

const q = (input: Record<string, string>) => suggestQuerySchema.parse(input);

describe('the candidate request', () => {
  it('fuzzy whole terms, then the last term as a fuzzy prefix on the grams, over cards in scope', () => {
    expect(suggestCandidatesBody(q({ q: 'Lightnig bolt', category: 'Magic', sellerCode: 'maple' }))).toEqual({
      size: 0,
      track_total_hits: false,
      query: {
        bool: {
          filter: [
            { term: { docType: 'card' } },
            { term: { category: 'Magic' } },
            { term: { sellerCode: 'maple' } },
            { fuzzy: { nameTerms: { value: 'lightnig', fuzziness: 2, transpositions: true, prefix_length: 0, max_expansions: 50 } } },
            { fuzzy: { nameGrams: { value: 'bolt', fuzziness: 1, transpositions: true, prefix_length: 0, max_expansions: 50 } } },
          ],
        },
      },
      aggs: {
        names: { terms: { field: 'nameKey', size: 100, execution_hint: 'map', order: [{ _count: 'desc' }, { _key: 'asc' }] } },
        exact: {
          filter: { bool: { filter: [{ term: { nameTerms: 'lightnig' } }, { prefix: { nameTerms: 'bolt' } }] } },
          aggs: { names: { terms: { field: 'nameKey', size: 100, execution_hint: 'map', order: [{ _count: 'desc' }, { _key: 'asc' }] } } },
        },
        listed: { filter: { bool: { filter: [{ term: { nameTerms: 'lightnig' } }, { term: { nameTerms: 'bolt' } }] } } },
      },
    });
  });

  it('aggregates the exact matches apart only when a clause is fuzzy', () => {
    expect(Object.keys(suggestCandidatesBody(q({ q: 'abc cha' }))!.aggs as object)).toEqual(['names', 'listed']);
    expect(Object.keys(suggestCandidatesBody(q({ q: 'frostwa' }))!.aggs as object)).toEqual(['names', 'exact', 'listed']);
  });

  it('fuzziness by length: none to 3 characters, one from 4, two from 7; short last terms are plain prefixes', () => {
    const clauses = (text: string) =>
      ((suggestCandidatesBody(q({ q: text }))!.query as { bool: { filter: unknown[] } }).bool.filter as unknown[]).slice(1);
    expect(clauses('abc cha')).toEqual([{ term: { nameTerms: 'abc' } }, { prefix: { nameTerms: 'cha' } }]);
    expect(clauses('glem char')).toEqual([
      { fuzzy: { nameTerms: { value: 'glem', fuzziness: 1, transpositions: true, prefix_length: 0, max_expansions: 50 } } },
      { fuzzy: { nameGrams: { value: 'char', fuzziness: 1, transpositions: true, prefix_length: 0, max_expansions: 50 } } },
    ]);
    expect(clauses('charz')).toEqual([
      { fuzzy: { nameGrams: { value: 'charz', fuzziness: 1, transpositions: true, prefix_length: 0, max_expansions: 50 } } },
    ]);
    expect(clauses('thoughtsieze')).toEqual([
      { fuzzy: { nameGrams: { value: 'thoughtsieze', fuzziness: 2, transpositions: true, prefix_length: 0, max_expansions: 50 } } },
    ]);
  });

  it('is no request when the text has no letter or digit', () => {
    expect(suggestCandidatesBody(q({ q: '!?' }))).toBeNull();
  });
});

describe('the count request', () => {
  it("one filter per name: /search's keyword clauses for it, over the cards in scope that carry one of the names", () => {
    const perName = [
      { bool: { filter: [{ term: { nameTerms: 'charizard' } }] } },
      { bool: { filter: [{ term: { nameTerms: 'dark' } }, { term: { nameTerms: 'charizard' } }] } },
    ];
    expect(suggestCountsBody(q({ q: 'char', sellerCode: 'birch' }), ['Charizard', 'Dark Charizard'])).toEqual({
      size: 0,
      track_total_hits: false,
      query: {
        bool: {
          filter: [{ term: { docType: 'card' } }, { term: { sellerCode: 'birch' } }, { bool: { should: perName, minimum_should_match: 1 } }],
        },
      },
      aggs: { counts: { filters: { filters: perName } } },
    });
  });
});

describe('the answer', () => {
  it('ranks the exact matches aggregated apart with the others: a rarely stocked exact prefix is not crowded out', () => {
    const { ranked } = candidatesOf(q({ q: 'frostwa' }), {
      aggregations: {
        names: {
          buckets: [
            { key: 'Frostward', doc_count: 40 },
            { key: 'Frostlash', doc_count: 30 },
          ],
        },
        exact: {
          names: {
            buckets: [
              { key: 'Frostward', doc_count: 40 },
              { key: 'Frostwake', doc_count: 1 },
            ],
          },
        },
        listed: { doc_count: 0 },
      },
    });
    expect(ranked.map((c) => [c.name, c.productCount])).toEqual([
      ['Frostward', 40],
      ['Frostwake', 1],
      ['Frostlash', 30],
    ]);
  });

  it('reranks the counted candidates by the /search totals and corrects only what lists nothing', () => {
    const query = q({ q: 'charzard', limit: '2' });
    const { ranked, toCount, listed } = candidatesOf(query, {
      aggregations: {
        names: {
          buckets: [
            { key: 'Charizard ex', doc_count: 2 },
            { key: 'Charizard', doc_count: 1 },
            { key: 'Charmander', doc_count: 1 }, // not within budget: dropped
          ],
        },
        listed: { doc_count: 0 },
      },
    });
    // Before counting, a name's own products order equals.
    expect(toCount.map((c) => c.name)).toEqual(['Charizard ex', 'Charizard']);
    const counts = countsOf({ aggregations: { counts: { buckets: [{ doc_count: 2 }, { doc_count: 3 }] } } });
    expect(suggestionsOf(query, ranked, toCount, listed, counts)).toEqual({
      completions: [
        { text: 'Charizard', productCount: 3 },
        { text: 'Charizard ex', productCount: 2 },
      ],
      correction: 'Charizard',
    });
    expect(suggestionsOf(query, ranked, toCount, 1, counts).correction).toBeNull();
  });
});
