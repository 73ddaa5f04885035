import { describe, expect, it } from 'vitest';
import { CART_HREF, MAX_PAGES, parseRoute, productHref, qs, searchHref, withParam, withValue } from '../../../storefront/routes.js';

// The storefront's state is its URL: parsing and writing it must round-trip, keep the API's own
// parameter names and values (so a hand-edited value reaches the API as typed), and drop the rest.

describe('storefront URL state', () => {
  it('a search URL round-trips, filters in a fixed order with repeated keys, unknown parameters dropped', () => {
    const route = parseRoute('?condition=Near%20Mint&utm_source=x&keyword=bolt&condition=Damaged&sort=name_desc&pages=3&cursor=abc');
    expect(route).toMatchObject({ view: 'search', pages: 3 });
    if (route.view !== 'search') throw new Error('not search');
    expect([...route.query]).toEqual([
      ['keyword', 'bolt'],
      ['condition', 'Near Mint'],
      ['condition', 'Damaged'],
      ['sort', 'name_desc'],
    ]);
    const href = searchHref(route.query, route.pages);
    expect(href).toBe('/?keyword=bolt&condition=Near+Mint&condition=Damaged&sort=name_desc&pages=3');
    expect(parseRoute(href.slice(1))).toEqual(route);
  });

  it('keeps a bad value as typed (the API answers it), but the page clamps its own `pages`', () => {
    const route = parseRoute('?sort=sideways&limit=0');
    expect(route.view === 'search' && qs(route.query)).toBe('?sort=sideways&limit=0');
    expect(parseRoute('?pages=-2')).toMatchObject({ pages: 1 });
    expect(parseRoute('?pages=two')).toMatchObject({ pages: 1 });
    expect(parseRoute('?pages=9999')).toMatchObject({ pages: MAX_PAGES });
    expect(searchHref(new URLSearchParams())).toBe('/');
  });

  it('product and cart views', () => {
    const href = productHref(123, new URLSearchParams('finish=Foil&sort=x&offset=20&condition=Damaged'));
    expect(href).toBe('/?view=product&productId=123&condition=Damaged&finish=Foil&offset=20');
    const route = parseRoute(href.slice(1));
    expect(route).toMatchObject({ view: 'product', productId: '123' });
    expect(route.view === 'product' && qs(route.query)).toBe('?condition=Damaged&finish=Foil&offset=20');
    expect(parseRoute(CART_HREF.slice(1))).toEqual({ view: 'cart' });
  });

  it('ticking values: several for a multi-valued filter, one at most for a single-valued one', () => {
    let q = new URLSearchParams('keyword=bolt');
    q = withValue(q, 'condition', 'Near Mint', true, true);
    q = withValue(q, 'condition', 'Damaged', true, true);
    q = withValue(q, 'set', 'Alpha', true, false);
    q = withValue(q, 'set', 'Beta', true, false);
    expect(q.getAll('condition')).toEqual(['Near Mint', 'Damaged']);
    expect(q.getAll('set')).toEqual(['Beta']);
    q = withValue(q, 'condition', 'Near Mint', false, true);
    q = withValue(q, 'set', 'Beta', false, false);
    expect(qs(q)).toBe('?keyword=bolt&condition=Damaged');
  });

  it('a parameter at its default or empty is left out of the URL', () => {
    const q = new URLSearchParams('keyword=bolt&sort=name_desc');
    expect(qs(withParam(q, 'sort', 'name', 'name'))).toBe('?keyword=bolt');
    expect(qs(withParam(q, 'keyword', ''))).toBe('?sort=name_desc');
    expect(qs(withParam(q, 'checkoutMode', 'manual', 'any'))).toBe('?keyword=bolt&sort=name_desc&checkoutMode=manual');
  });
});
