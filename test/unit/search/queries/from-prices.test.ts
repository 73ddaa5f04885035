import { describe, expect, it } from 'vitest';
import { searchQuerySchema } from '../../../../src/contract/buyer.js';
import { cardItem, pricedItem, searchItem } from '../../../../src/search/documents/builders.js';
import { fromPriceBody, fromPrices, pricedPage } from '../../../../src/search/queries/from-prices.js';

// Cards hold no price: search reads each item's fromPrice from its product's matching offers.

const q = (raw: Record<string, string | string[]>) => searchQuerySchema.parse(raw);
const shown = [{ term: { docType: 'offer' } }, { term: { shown: true } }];
const minPrice = (size: number) => ({ products: { terms: { field: 'productId', size }, aggs: { fromPrice: { min: { field: 'price' } } } } });

describe('fromPriceBody', () => {
  it("without offer-level selections: the lowest price of each page product's shown offers", () => {
    expect(fromPriceBody(q({ keyword: 'bolt', category: 'Magic' }), [7, 8])).toEqual({
      size: 0,
      track_total_hits: false,
      query: { bool: { filter: [...shown, { terms: { productId: [7, 8] } }] } },
      aggs: minPrice(2),
    });
  });

  it('with them: only the offers that match every one (the groups the item counts)', () => {
    expect(fromPriceBody(q({ condition: ['Near Mint', 'Damaged'], language: 'English', sellerCode: 'maple', checkoutMode: 'express' }), [7])).toEqual({
      size: 0,
      track_total_hits: false,
      query: {
        bool: {
          filter: [
            ...shown,
            { terms: { productId: [7] } },
            { terms: { condition: ['Near Mint', 'Damaged'] } },
            { term: { language: 'English' } },
            { term: { checkoutMode: 'express' } },
            { term: { sellerCode: 'maple' } },
          ],
        },
      },
      aggs: minPrice(1),
    });
  });
});

describe('pricedPage', () => {
  const item = { productId: 7, name: 'Bolt', set: null, category: 'Magic: The Gathering', rarity: null, collectorNumber: null, imageUrl: null };
  const groups = { sellerCount: 2, isSealed: false, hasNative: true };

  it('gives each item its price in the contract field order (as a search item built with it)', () => {
    const res = { aggregations: { products: { buckets: [{ key: 7, doc_count: 3, fromPrice: { value: 250 } }] } } };
    const page = pricedPage({ items: [cardItem(item, groups)], facets: {} as never, nextAfter: 'k' }, fromPrices(res));
    expect(JSON.stringify(page.items)).toBe(JSON.stringify([searchItem(item, { ...groups, fromPrice: 250 })]));
    expect(page.nextAfter).toBe('k');
  });

  it('leaves out an item whose product has no matching shown offer any more, keeping the cursor', () => {
    const items = [cardItem(item, groups), cardItem({ ...item, productId: 8 }, groups)];
    const page = pricedPage({ items, facets: {} as never, nextAfter: 'k8' }, new Map([[8, 90]]));
    expect(page.items.map((i) => [i.productId, i.fromPrice])).toEqual([[8, 90]]);
    expect(page.nextAfter).toBe('k8');
    expect(pricedItem(items[1]!, 90)).toEqual(page.items[0]);
  });
});
