import { describe, expect, it } from 'vitest';
import { searchQuerySchema, type Facets } from '../../../../src/contract/buyer.js';
import { requestKey } from '../../../../src/search/degraded/cache.js';
import { landingRequests, searchKey, singleFilterRequests } from '../../../../src/search/degraded/warm-set.js';

const values = (...vs: string[]) => vs.map((value, i) => ({ value, count: 100 - i }));

const facets: Facets = {
  category: values('Magic: The Gathering', 'Pokémon'),
  set: values('Alpha', 'Beta', 'Unlimited'),
  rarity: values('Rare'),
  condition: values('Near Mint', 'Damaged'),
  language: values('English'),
  finish: values('Foil', 'Normal'),
  collectorNumber: values('1', '2', '3', '4'),
  seller: [
    { sellerCode: 'maple', storeName: 'Maple Cards', count: 9 },
    { sellerCode: 'oak', storeName: 'Oak', count: 3 },
  ],
};

/** The key GET /search gives a first page with these query-string parameters. */
const routeKey = (params: Record<string, string | string[] | undefined>) => requestKey('search', [searchQuerySchema.parse(params), null]);

describe('warm set', () => {
  it('the landing grid in both sorts, keyed as the storefront asks it (defaults filled in)', () => {
    const [byName, byDesc] = landingRequests();
    expect(byName!.key).toBe(routeKey({}));
    expect(byName!.key).toBe(routeKey({ sort: 'name', limit: '24', checkoutMode: 'any' }));
    expect(byDesc!.key).toBe(routeKey({ sort: 'name_desc' }));
    expect(byName!.query).toEqual({ checkoutMode: 'any', sort: 'name', limit: 24 });
  });

  it('one first page per facet value (seller as sellerCode), then both checkout modes, in the facets order', () => {
    const reqs = singleFilterRequests(facets, 100);
    const want: Record<string, string>[] = [
      { category: 'Magic: The Gathering' },
      { category: 'Pokémon' },
      { set: 'Alpha' },
      { set: 'Beta' },
      { set: 'Unlimited' },
      { rarity: 'Rare' },
      { condition: 'Near Mint' },
      { condition: 'Damaged' },
      { language: 'English' },
      { finish: 'Foil' },
      { finish: 'Normal' },
      { collectorNumber: '1' },
      { collectorNumber: '2' },
      { collectorNumber: '3' },
      { collectorNumber: '4' },
      { sellerCode: 'maple' },
      { sellerCode: 'oak' },
      { checkoutMode: 'express' },
      { checkoutMode: 'manual' },
    ];
    expect(reqs.map((r) => r.key)).toEqual(want.map(routeKey));
    // A multi-valued filter given once is the one-element array the route parses it to.
    expect(reqs[6]!.query.condition).toEqual(['Near Mint']);
    expect(reqs[6]!.key).toBe(routeKey({ condition: ['Near Mint'] }));
    for (const r of reqs) expect(r.key).toBe(searchKey(r.query));
  });

  it('bounds each facet to its top N values', () => {
    const reqs = singleFilterRequests(facets, 1);
    expect(reqs.map((r) => r.key)).toEqual(
      [
        { category: 'Magic: The Gathering' },
        { set: 'Alpha' },
        { rarity: 'Rare' },
        { condition: 'Near Mint' },
        { language: 'English' },
        { finish: 'Foil' },
        { collectorNumber: '1' },
        { sellerCode: 'maple' },
        { checkoutMode: 'express' },
        { checkoutMode: 'manual' },
      ].map(routeKey),
    );
    expect(singleFilterRequests(facets, 0).map((r) => r.query.checkoutMode)).toEqual(['express', 'manual']);
  });

  it('at the facets full size (100 values each) the set is 802 requests, plus the 2 landing grids', () => {
    const many = (p: string) => Array.from({ length: 100 }, (_, i) => ({ value: `${p}${i}`, count: 1000 - i }));
    const full: Facets = {
      category: many('c'),
      set: many('s'),
      rarity: many('r'),
      condition: many('n'),
      language: many('l'),
      finish: many('f'),
      collectorNumber: many('#'),
      seller: Array.from({ length: 100 }, (_, i) => ({ sellerCode: `s${i}`, storeName: `S${i}`, count: 1 })),
    };
    const reqs = singleFilterRequests(full, 100);
    expect(reqs).toHaveLength(802);
    expect(new Set(reqs.map((r) => r.key)).size).toBe(802);
    expect(singleFilterRequests(full, 250)).toHaveLength(802);
  });

  it('drops values the edge would refuse (never asked by a storefront) and duplicates', () => {
    const odd: Facets = {
      ...facets,
      set: [...values('Alpha'), { value: 'x'.repeat(256), count: 1 }, { value: '', count: 1 }],
      seller: [
        { sellerCode: 'maple', storeName: 'Maple', count: 1 },
        { sellerCode: 'maple', storeName: 'Maple again', count: 1 },
      ],
    };
    const keys = singleFilterRequests(odd, 100).map((r) => r.key);
    expect(keys.filter((k) => k.includes('"set"'))).toEqual([routeKey({ set: 'Alpha' })]);
    expect(keys.filter((k) => k === routeKey({ sellerCode: 'maple' }))).toHaveLength(1);
    expect(keys).not.toContain(routeKey({}));
  });
});
