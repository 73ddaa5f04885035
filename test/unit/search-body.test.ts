import { describe, expect, it } from 'vitest';
import { searchQuerySchema } from '../../src/contract/buyer.js';
import { searchBody } from '../../src/search/queries/search-body.js';

// searchBody(), one case per input feature, asserting the exact Elasticsearch request (in the
// manner of Vendure's build-elastic-body.spec.ts). The query goes through the wire schema first,
// so defaults are the ones a buyer request gets.

const q = (params: Record<string, unknown> = {}) => searchQuerySchema.parse(params);

const SHOWN = [{ term: { docType: 'offer' } }, { term: { shown: true } }];
const FACET_FIELDS = {
  category: 'category',
  set: 'set',
  rarity: 'rarity',
  condition: 'condition',
  language: 'language',
  finish: 'finish',
  collectorNumber: 'collectorNumber',
  seller: 'sellerFacet',
} as const;
type Facet = keyof typeof FACET_FIELDS;

/** One facet's aggregation, filtered by `filter` (every selection but the facet's own). */
const facetAgg = (facet: Facet, filter: unknown[] = []) => ({
  filter: { bool: { filter } },
  aggs: {
    values: {
      terms: { field: FACET_FIELDS[facet], size: 100, order: [{ products: 'desc' }, { _key: 'asc' }] },
      aggs: { products: { cardinality: { field: 'productId', precision_threshold: 3000 } } },
    },
  },
});

/** Every facet aggregation; `filters` gives a facet's filter when it is not the empty one. */
const facetAggs = (filters: Partial<Record<Facet, unknown[]>> = {}) =>
  Object.fromEntries((Object.keys(FACET_FIELDS) as Facet[]).map((f) => [`facet_${f}`, facetAgg(f, filters[f] ?? [])]));

const results = (filter: unknown[], composite: Record<string, unknown>) => ({
  filter: { bool: { filter } },
  aggs: {
    products: {
      composite,
      aggs: {
        fromPrice: { min: { field: 'price' } },
        sellerCount: { cardinality: { field: 'storeKey', precision_threshold: 200 } },
        sealed: { max: { field: 'isSealed' } },
        native: { filter: { term: { lane: 'native' } } },
        top: { top_hits: { size: 1, _source: ['item'] } },
      },
    },
  },
});

const byName = (order: 'asc' | 'desc') => [{ key: { terms: { field: 'sortKey', order } } }];

/** The whole body when only the facet-free parts differ from the defaults. */
const body = (opts: { query?: unknown[]; size?: number; order?: 'asc' | 'desc'; after?: string } = {}) => ({
  size: 0,
  track_total_hits: false,
  query: { bool: { filter: [...SHOWN, ...(opts.query ?? [])] } },
  aggs: {
    results: results([], {
      size: opts.size ?? 25,
      sources: byName(opts.order ?? 'asc'),
      ...(opts.after === undefined ? {} : { after: { key: opts.after } }),
    }),
    ...facetAggs(),
  },
});

describe('searchBody()', () => {
  it('defaults: shown offers, name order, 24 per page plus one look-ahead bucket, every facet unfiltered', () => {
    expect(searchBody(q(), null)).toEqual(body());
  });

  it('limit: the composite size is limit + 1', () => {
    expect(searchBody(q({ limit: '5' }), null)).toEqual(body({ size: 6 }));
  });

  it('sort name_desc: descending sort key', () => {
    expect(searchBody(q({ sort: 'name_desc' }), null)).toEqual(body({ order: 'desc' }));
  });

  it('after: the cursor key continues the composite aggregation', () => {
    expect(searchBody(q(), 'lightning bolt\u00001234')).toEqual(body({ after: 'lightning bolt\u00001234' }));
  });

  it('keyword: one term clause per folded term, in the query (not a facet)', () => {
    expect(searchBody(q({ keyword: 'Lím-Dûl  BOLT' }), null)).toEqual(
      body({ query: [{ term: { nameTerms: 'lim' } }, { term: { nameTerms: 'dul' } }, { term: { nameTerms: 'bolt' } }] }),
    );
  });

  it('keyword without letters or digits constrains nothing', () => {
    expect(searchBody(q({ keyword: ' -- ' }), null)).toEqual(body());
  });

  it('checkoutMode: a term in the query; "any" adds none', () => {
    expect(searchBody(q({ checkoutMode: 'manual' }), null)).toEqual(body({ query: [{ term: { checkoutMode: 'manual' } }] }));
    expect(searchBody(q({ checkoutMode: 'any' }), null)).toEqual(body());
  });

  // Facet filters: the results get the clause; every other facet's counts get it; the facet's own
  // counts do not (disjunctive facets).
  const facetCases: [string, Record<string, unknown>, Facet, unknown][] = [
    ['category', { category: 'Magic: The Gathering' }, 'category', { term: { category: 'Magic: The Gathering' } }],
    ['set', { set: 'Alpha' }, 'set', { term: { set: 'Alpha' } }],
    ['rarity', { rarity: 'Rare' }, 'rarity', { term: { rarity: 'Rare' } }],
    ['condition, one value: term', { condition: 'Near Mint' }, 'condition', { term: { condition: 'Near Mint' } }],
    ['condition, repeated: terms', { condition: ['Near Mint', 'Damaged'] }, 'condition', { terms: { condition: ['Near Mint', 'Damaged'] } }],
    ['language', { language: ['English', 'Japanese'] }, 'language', { terms: { language: ['English', 'Japanese'] } }],
    ['finish', { finish: 'Foil' }, 'finish', { term: { finish: 'Foil' } }],
    ['collectorNumber', { collectorNumber: ['1', '2a'] }, 'collectorNumber', { terms: { collectorNumber: ['1', '2a'] } }],
    ['sellerCode: filters sellerCode, counts the seller facet', { sellerCode: 'maple' }, 'seller', { term: { sellerCode: 'maple' } }],
  ];
  for (const [name, params, facet, clause] of facetCases) {
    it(`facet ${name}`, () => {
      const others = Object.fromEntries((Object.keys(FACET_FIELDS) as Facet[]).filter((f) => f !== facet).map((f) => [f, [clause]]));
      expect(searchBody(q(params), null)).toEqual({
        ...body(),
        aggs: { results: results([clause], { size: 25, sources: byName('asc') }), ...facetAggs(others) },
      });
    });
  }

  it('combined: keyword and checkoutMode in the query; two facets each excluded from their own counts, in facet order', () => {
    const condition = { terms: { condition: ['Near Mint', 'Lightly Played'] } };
    const category = { term: { category: 'Pokémon' } };
    expect(
      searchBody(
        q({ keyword: 'bolt', checkoutMode: 'express', condition: ['Near Mint', 'Lightly Played'], category: 'Pokémon', sort: 'name_desc', limit: '10' }),
        'k',
      ),
    ).toEqual({
      size: 0,
      track_total_hits: false,
      query: { bool: { filter: [...SHOWN, { term: { nameTerms: 'bolt' } }, { term: { checkoutMode: 'express' } }] } },
      aggs: {
        results: results([category, condition], { size: 11, sources: byName('desc'), after: { key: 'k' } }),
        ...facetAggs({
          category: [condition],
          set: [category, condition],
          rarity: [category, condition],
          condition: [category],
          language: [category, condition],
          finish: [category, condition],
          collectorNumber: [category, condition],
          seller: [category, condition],
        }),
      },
    });
  });
});
