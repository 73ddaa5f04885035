import { describe, expect, it } from 'vitest';
import { searchQuerySchema } from '../../../../src/contract/buyer.js';
import { offerFacetPlan, offerFilter, offerSearchBody, offerSearchPage, offerSelections } from '../../../../src/search/queries/offer-search.js';
import { FACET_FIELD } from '../../../../src/search/queries/filters.js';
import { comboValues, type CardGroup } from '../../../../src/search/documents/offer-groups.js';
import { indexDefinition } from '../../../../indexer/index-admin.js';

// offerSearchBody() and offerSearchPage(), one case per input feature, asserting the exact
// Elasticsearch clauses (in the manner of Vendure's build-elastic-body.spec.ts). Queries go
// through the wire schema first, so defaults are the ones a buyer request gets.

const q = (params: Record<string, unknown>) => searchQuerySchema.parse(params);
const sel = (params: Record<string, unknown>) => offerSelections(q(params));
const Z = '\u0000';

type Body = {
  size: number;
  _source: string[];
  query: unknown;
  post_filter: unknown;
  sort: unknown;
  search_after?: unknown;
  aggs: Record<string, { filter: unknown; aggs: Record<string, any> }>;
};
const body = (params: Record<string, unknown>, after: string | null = null) => offerSearchBody(q(params), after) as Body;
const values = (field: string, include?: string) => ({
  values: { terms: { field, size: 100, order: [{ _count: 'desc' }, { _key: 'asc' }], ...(include === undefined ? {} : { include }) } },
});

describe('offerFilter: products with a group matching every selection, as one clause on the card', () => {
  it('one dimension: a term or terms on the card folded field', () => {
    expect(offerFilter(sel({ condition: 'Near Mint' }))).toEqual({ term: { condition: 'Near Mint' } });
    expect(offerFilter(sel({ language: ['English', 'Japanese'] }))).toEqual({ terms: { language: ['English', 'Japanese'] } });
    expect(offerFilter(sel({ checkoutMode: 'manual' }))).toEqual({ term: { checkoutMode: 'manual' } });
    expect(offerFilter(sel({ sellerCode: 'maple' }))).toEqual({ term: { sellerCode: 'maple' } });
    expect(offerFilter(sel({ checkoutMode: 'any', keyword: 'bolt' }))).toBeNull();
  });

  it('two or three dimensions: the exact tuples on their combination field, in dimension order', () => {
    expect(offerFilter(sel({ language: 'English', condition: 'Near Mint' }))).toEqual({ term: { x_cl: `Near Mint${Z}English` } });
    expect(offerFilter(sel({ condition: ['Near Mint', 'Damaged'], finish: 'Foil', checkoutMode: 'express' }))).toEqual({
      terms: { x_cfm: [`Near Mint${Z}Foil${Z}express`, `Damaged${Z}Foil${Z}express`] },
    });
  });

  it('with the seller (always last): a prefix ending after the code, one per tuple of the others', () => {
    expect(offerFilter(sel({ sellerCode: 'maple', condition: 'Near Mint' }))).toEqual({ prefix: { x_cs: `Near Mint${Z}maple${Z}` } });
    expect(offerFilter(sel({ sellerCode: 'maple', checkoutMode: 'express', language: ['English', 'Japanese'] }))).toEqual({
      bool: {
        should: [{ prefix: { x_lms: `English${Z}express${Z}maple${Z}` } }, { prefix: { x_lms: `Japanese${Z}express${Z}maple${Z}` } }],
        minimum_should_match: 1,
      },
    });
  });

  it('four or five dimensions, or too many tuples to list: a nested query on the groups', () => {
    expect(offerFilter(sel({ condition: 'Near Mint', language: 'English', finish: 'Foil', sellerCode: 'maple' }))).toEqual({
      nested: {
        path: 'groups',
        query: {
          bool: {
            filter: [
              { term: { 'groups.condition': 'Near Mint' } },
              { term: { 'groups.language': 'English' } },
              { term: { 'groups.finish': 'Foil' } },
              { term: { 'groups.sellerCode': 'maple' } },
            ],
          },
        },
      },
    });
    const many = Array.from({ length: 9 }, (_, i) => `c${i}`);
    const eight = Array.from({ length: 8 }, (_, i) => `l${i}`);
    expect(offerFilter(sel({ condition: many, language: eight }))).toEqual({
      nested: { path: 'groups', query: { bool: { filter: [{ terms: { 'groups.condition': many } }, { terms: { 'groups.language': eight } }] } } },
    });
  });
});

describe('offerFacetPlan: how an offer-level facet counts products exactly', () => {
  it('root when no other offer dimension is selected (its own selection does not count)', () => {
    expect(offerFacetPlan(sel({ condition: ['Near Mint', 'Damaged'] }), 'c')).toEqual({ kind: 'root' });
  });
  it('combo when every other selection is one value and the set has at most three dimensions', () => {
    expect(offerFacetPlan(sel({ condition: ['Near Mint', 'Damaged'], sellerCode: 'maple' }), 'c')).toEqual({ kind: 'combo', dims: ['c', 's'] });
    expect(offerFacetPlan(sel({ language: 'English', checkoutMode: 'express' }), 's')).toEqual({ kind: 'combo', dims: ['l', 'm', 's'] });
  });
  it('nested when another dimension has several values, or a fourth dimension would be needed', () => {
    expect(offerFacetPlan(sel({ condition: ['Near Mint', 'Damaged'], language: 'English' }), 'l')).toEqual({ kind: 'nested' });
    expect(offerFacetPlan(sel({ condition: 'Near Mint', language: 'English', finish: 'Foil' }), 's')).toEqual({ kind: 'nested' });
  });
});

describe('offerSearchBody', () => {
  it('pages cards by sort key with one extra hit and search_after, reading card and groups', () => {
    const b = body({ condition: 'Near Mint', limit: '12', sort: 'name_desc' }, `bolt${Z}00000101`);
    expect(b).toMatchObject({
      size: 13,
      track_total_hits: false,
      _source: ['card', 'groups'],
      sort: [{ sortKey: { order: 'desc' } }],
      search_after: [`bolt${Z}00000101`],
    });
    expect(body({ condition: 'Near Mint' })).not.toHaveProperty('search_after');
    expect(() => offerSearchBody(q({ keyword: 'bolt' }), null)).toThrow();
  });

  it('keyword in the query; product and offer selections in the post_filter (disjunctive facets)', () => {
    const b = body({ keyword: 'Lightning', category: 'Magic', condition: 'Near Mint', language: 'English' });
    expect(b.query).toEqual({ bool: { filter: [{ term: { docType: 'card' } }, { term: { nameTerms: 'lightning' } }] } });
    expect(b.post_filter).toEqual({ bool: { filter: [{ term: { category: 'Magic' } }, { term: { x_cl: `Near Mint${Z}English` } }] } });
  });

  it('product-level facets: every other selection, the offer ones as one clause', () => {
    const b = body({ category: 'Magic', set: 'Alpha', condition: 'Near Mint', sellerCode: 'maple' });
    const all = { prefix: { x_cs: `Near Mint${Z}maple${Z}` } };
    expect(b.aggs.facet_category).toEqual({ filter: { bool: { filter: [{ term: { set: 'Alpha' } }, all] } }, aggs: values('category') });
    expect(b.aggs.facet_rarity).toEqual({
      filter: { bool: { filter: [{ term: { category: 'Magic' } }, { term: { set: 'Alpha' } }, all] } },
      aggs: values('rarity'),
    });
  });

  it('an offer facet with no other offer selection: the card folded field under the product selections', () => {
    const b = body({ category: 'Magic', condition: ['Near Mint', 'Damaged'] });
    expect(b.aggs.facet_condition).toEqual({ filter: { bool: { filter: [{ term: { category: 'Magic' } }] } }, aggs: values('condition') });
    // the seller facet's other selection has two values: nested
    expect(b.aggs.facet_seller!.aggs.groups.aggs.matching.aggs.values.terms.field).toBe('groups.sellerFacet');
  });

  it('combo facets: the combination field, the others fixed by include, under "has a group matching the others"', () => {
    const b = body({ condition: 'Near Mint', sellerCode: 'a.b', checkoutMode: 'express' });
    const esc = `\\${Z}`;
    // condition facet: others = checkoutMode + seller
    expect(b.aggs.facet_condition).toEqual({
      filter: { bool: { filter: [{ prefix: { x_ms: `express${Z}a.b${Z}` } }] } },
      aggs: values('x_cms', `[^${esc}]*${esc}express${esc}a\\.b${esc}.*`),
    });
    // seller facet: others = condition + checkoutMode; the seller's value (last) keeps its own U+0000
    expect(b.aggs.facet_seller).toEqual({
      filter: { bool: { filter: [{ term: { x_cm: `Near Mint${Z}express` } }] } },
      aggs: values('x_cms', `Near Mint${esc}express${esc}.*`),
    });
    // language facet: a fourth dimension would be needed -> nested
    expect(b.aggs.facet_language).toEqual({
      filter: { bool: { filter: [{ prefix: { x_cms: `Near Mint${Z}express${Z}a.b${Z}` } }] } },
      aggs: {
        groups: {
          nested: { path: 'groups' },
          aggs: {
            matching: {
              filter: {
                bool: {
                  filter: [
                    { term: { 'groups.condition': 'Near Mint' } },
                    { term: { 'groups.checkoutMode': 'express' } },
                    { term: { 'groups.sellerCode': 'a.b' } },
                  ],
                },
              },
              aggs: {
                values: {
                  terms: { field: 'groups.language', size: 100, order: [{ products: 'desc' }, { _key: 'asc' }] },
                  aggs: { products: { reverse_nested: {} } },
                },
              },
            },
          },
        },
      },
    });
  });

  it('a facet whose other dimension has several values: nested terms with reverse_nested counts', () => {
    const b = body({ condition: ['Near Mint', 'Damaged'], language: 'English' });
    expect(b.aggs.facet_language!.filter).toEqual({ bool: { filter: [{ terms: { condition: ['Near Mint', 'Damaged'] } }] } });
    expect(b.aggs.facet_language!.aggs.groups.aggs.matching.filter).toEqual({
      bool: { filter: [{ terms: { 'groups.condition': ['Near Mint', 'Damaged'] } }] },
    });
    // the condition facet's other selection (English) is one value: combo
    expect(b.aggs.facet_condition!.aggs).toEqual(values('x_cl', `[^\\${Z}]*\\${Z}English`));
  });
});

describe('offerSearchPage', () => {
  const group = (g: Partial<CardGroup>): CardGroup => ({
    skuId: 1,
    storeKey: 'n:1',
    lane: 'native',
    checkoutMode: 'express',
    sellerCode: 'maple',
    sellerFacet: `maple${Z}Maple`,
    condition: 'Near Mint',
    language: 'English',
    finish: null,
    isSealed: false,
    ...g,
  });
  const card = { productId: 7, name: 'Bolt', set: null, category: 'Magic: The Gathering', rarity: null, collectorNumber: null, imageUrl: null };
  const buckets = (...bs: [string, number][]) => ({ values: { buckets: bs.map(([key, doc_count]) => ({ key, doc_count })) } });
  const emptyAggs = () =>
    Object.fromEntries(
      ['category', 'set', 'rarity', 'condition', 'language', 'finish', 'collectorNumber', 'seller'].map((f) => [`facet_${f}`, buckets()]),
    );

  it('items from the matching groups only, without a price; the cursor is the last item sort key when a look-ahead hit exists', () => {
    const groups = [
      group({ condition: 'Damaged' }),
      group({ skuId: 2, storeKey: 'n:2' }),
      group({ skuId: 2, storeKey: 'h:x', lane: 'handoff', checkoutMode: 'manual', isSealed: true }),
    ];
    const res = {
      hits: {
        hits: [
          { _source: { card: { ...card, sellerCount: 3 }, groups }, sort: ['k1'] },
          { _source: { card: { ...card, productId: 8 }, groups }, sort: ['k2'] },
        ],
      },
      aggregations: emptyAggs(),
    };
    const page = offerSearchPage(res, q({ condition: 'Near Mint', limit: '1' }));
    expect(page.items).toEqual([expect.objectContaining({ productId: 7, sellerCount: 2, isSealed: true, fulfillmentObligation: expect.anything() })]);
    expect(page.items[0]).not.toHaveProperty('fromPrice');
    expect(page.nextAfter).toBe('k1');
    const manual = offerSearchPage(res, q({ checkoutMode: 'manual', limit: '5' }));
    expect(manual.items[0]).toMatchObject({ sellerCount: 1, disclosures: null, fulfillmentObligation: null });
    expect(manual.nextAfter).toBeNull();
  });

  it('facet values: the facet piece of a combination key, the seller with its name; reverse_nested counts', () => {
    const aggs = {
      ...emptyAggs(),
      facet_condition: buckets([`Near Mint${Z}express${Z}maple${Z}Maple`, 4], [`Damaged${Z}express${Z}maple${Z}Maple`, 2]),
      facet_seller: buckets([`Near Mint${Z}express${Z}maple${Z}Maple`, 4]),
      facet_language: {
        groups: { matching: { values: { buckets: [{ key: 'English', doc_count: 9, products: { doc_count: 3 } }] } } },
      },
    };
    const page = offerSearchPage({ hits: { hits: [] }, aggregations: aggs }, q({ condition: 'Near Mint', sellerCode: 'maple', checkoutMode: 'express' }));
    expect(page.facets.condition).toEqual([
      { value: 'Near Mint', count: 4 },
      { value: 'Damaged', count: 2 },
    ]);
    expect(page.facets.seller).toEqual([{ sellerCode: 'maple', storeName: 'Maple', count: 4 }]);
    expect(page.facets.language).toEqual([{ value: 'English', count: 3 }]);
  });
});

describe('the mapping', () => {
  it('builds global ordinals at refresh only for the landing grid facets, which nearly every search aggregates', () => {
    const props = (
      indexDefinition().mappings as {
        properties: Record<string, { eager_global_ordinals?: boolean; properties?: Record<string, { eager_global_ordinals?: boolean }> }>;
      }
    ).properties;
    const eager = (o: Record<string, { eager_global_ordinals?: boolean }>) => Object.keys(o).filter((k) => o[k]!.eager_global_ordinals === true);
    expect(eager(props).sort()).toEqual(Object.values(FACET_FIELD).sort());
    expect(eager(props.groups!.properties!)).toEqual([]);
  });

  it('maps every combination field a card can carry (20: pairs and triples of five dimensions) as a keyword with lazy ordinals', () => {
    const full: CardGroup = {
      skuId: 1,
      storeKey: 'n:1',
      lane: 'native',
      checkoutMode: 'express',
      sellerCode: 'maple',
      sellerFacet: `maple${Z}Maple`,
      condition: 'Near Mint',
      language: 'English',
      finish: 'Foil',
      isSealed: false,
    };
    const fields = Object.keys(comboValues([full]));
    expect(fields).toHaveLength(20);
    const props = (indexDefinition().mappings as { properties: Record<string, unknown> }).properties;
    // Lazy ordinals: only the searches that aggregate a combination pay for its global ordinals,
    // instead of every refresh for all twenty (BENCHMARKS.md, "eager or lazy global ordinals").
    // ignore_above: a value too long for a keyword term is left unindexed instead of refusing the card.
    for (const f of fields) expect(props[f], f).toEqual({ type: 'keyword', ignore_above: 8191 });
    expect(
      Object.keys(props)
        .filter((k) => k.startsWith('x_'))
        .sort(),
    ).toEqual(fields.sort());
  });
});
