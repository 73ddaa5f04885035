import { describe, expect, it } from 'vitest';
import { searchQuerySchema } from '../../../../src/contract/buyer.js';
import { cardSearchBody, cardSearchPage, usesCards } from '../../../../src/search/queries/card-search.js';

const q = (raw: Record<string, string | string[]>) => searchQuerySchema.parse(raw);

describe('usesCards', () => {
  it('takes cards for keyword and product-level filters, offers for any offer-level filter', () => {
    expect(usesCards(q({}))).toBe(true);
    expect(usesCards(q({ keyword: 'bolt', category: 'Magic', set: 'Alpha', rarity: 'Rare', collectorNumber: ['1', '2'] }))).toBe(true);
    expect(usesCards(q({ checkoutMode: 'any' }))).toBe(true);
    const offerLevel: Record<string, string>[] = [
      { condition: 'Near Mint' },
      { language: 'English' },
      { finish: 'Foil' },
      { sellerCode: 'maple' },
      { checkoutMode: 'express' },
      { checkoutMode: 'manual' },
    ];
    for (const raw of offerLevel) {
      expect(usesCards(q(raw)), JSON.stringify(raw)).toBe(false);
    }
  });
});

describe('cardSearchBody', () => {
  it('pages cards by sort key with one extra hit and search_after', () => {
    const body = cardSearchBody(q({ limit: '12', sort: 'name_desc' }), 'bolt\u000000000101');
    expect(body).toMatchObject({ size: 13, sort: [{ sortKey: { order: 'desc' } }], search_after: ['bolt\u000000000101'], _source: ['card'] });
    expect(body.query).toEqual({ bool: { filter: [{ term: { docType: 'card' } }] } });
    expect(body).not.toHaveProperty('post_filter');
    expect(cardSearchBody(q({}), null)).not.toHaveProperty('search_after');
  });

  it('keeps keyword terms in the query and facet selections out of their own facet (disjunctive)', () => {
    const body = cardSearchBody(q({ keyword: 'Lightning Bölt', category: 'Magic', set: 'Alpha' }), null) as {
      query: unknown;
      post_filter: unknown;
      aggs: Record<string, { filter: unknown; aggs: { values: { terms: { field: string; order: unknown } } } }>;
    };
    expect(body.query).toEqual({
      bool: { filter: [{ term: { docType: 'card' } }, { term: { nameTerms: 'lightning' } }, { term: { nameTerms: 'bolt' } }] },
    });
    expect(body.post_filter).toEqual({ bool: { filter: [{ term: { category: 'Magic' } }, { term: { set: 'Alpha' } }] } });
    expect(body.aggs.facet_category!.filter).toEqual({ bool: { filter: [{ term: { set: 'Alpha' } }] } });
    expect(body.aggs.facet_set!.filter).toEqual({ bool: { filter: [{ term: { category: 'Magic' } }] } });
    expect(body.aggs.facet_condition!.filter).toEqual({ bool: { filter: [{ term: { category: 'Magic' } }, { term: { set: 'Alpha' } }] } });
    expect(body.aggs.facet_seller!.aggs.values.terms).toMatchObject({ field: 'sellerFacet', order: [{ _count: 'desc' }, { _key: 'asc' }] });
  });
});

describe('cardSearchPage', () => {
  const aggs = (buckets: { key: string; doc_count: number }[]) => ({ values: { buckets } });
  const empty = {
    facet_category: aggs([]),
    facet_set: aggs([]),
    facet_rarity: aggs([]),
    facet_condition: aggs([]),
    facet_language: aggs([]),
    facet_finish: aggs([]),
    facet_collectorNumber: aggs([]),
  };

  it('gives a next key only when the extra hit came back, and splits seller facet keys', () => {
    const hit = (id: number) => ({ _source: { card: { productId: id } }, sort: [`k${id}`] });
    const page = cardSearchPage(
      { hits: { hits: [hit(1), hit(2), hit(3)] }, aggregations: { ...empty, facet_seller: aggs([{ key: 'maple\u0000Maple Cards', doc_count: 4 }]) } },
      2,
    );
    expect(page.items.map((i) => i.productId)).toEqual([1, 2]);
    expect(page.nextAfter).toBe('k2');
    expect(page.facets.seller).toEqual([{ sellerCode: 'maple', storeName: 'Maple Cards', count: 4 }]);
    const last = cardSearchPage({ hits: { hits: [hit(1), hit(2)] }, aggregations: { ...empty, facet_seller: aggs([]) } }, 2);
    expect(last.nextAfter).toBeNull();
  });
});
