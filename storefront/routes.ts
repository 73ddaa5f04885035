// The page's state lives in its URL: which view, and for a view its query, with the buyer API's
// own parameter names, so a link, a reload or back/forward gives the same page and the page sends
// the API exactly what the URL says (a hand-edited bad value gets the API's own 400, shown as such).
//
//   /?keyword=bolt&condition=Near%20Mint&pages=2          search (`pages`: how many "more results" pages are shown)
//   /?view=product&productId=123&condition=Damaged&offset=20   a product's offers
//   /?view=cart                                           the cart (its lines live in localStorage)

/** GET /search's parameters, in the order the page writes them. */
export const SEARCH_PARAMS = [
  'keyword',
  'category',
  'set',
  'rarity',
  'sellerCode',
  'condition',
  'language',
  'finish',
  'collectorNumber',
  'checkoutMode',
  'sort',
  'limit',
] as const;

/** GET /products/{id}'s filters and paging, in the order the page writes them. */
export const PRODUCT_PARAMS = ['condition', 'language', 'finish', 'offset'] as const;
export type ProductFilter = 'condition' | 'language' | 'finish';
export const PRODUCT_FILTERS: readonly ProductFilter[] = ['condition', 'language', 'finish'];

/** At most this many pages are replayed from a URL's `pages` (a shared link of a deep walk). */
export const MAX_PAGES = 50;

export type Route =
  { view: 'search'; query: URLSearchParams; pages: number } | { view: 'product'; productId: string; query: URLSearchParams } | { view: 'cart' };

/** Only the names given, in that order, each with its values in URL order; empty values dropped. */
function pick(from: URLSearchParams, names: readonly string[]): URLSearchParams {
  const out = new URLSearchParams();
  for (const name of names) for (const v of from.getAll(name)) if (v !== '') out.append(name, v);
  return out;
}

export function parseRoute(search: string): Route {
  const u = new URLSearchParams(search);
  const view = u.get('view');
  if (view === 'cart') return { view: 'cart' };
  if (view === 'product') return { view: 'product', productId: u.get('productId') ?? '', query: pick(u, PRODUCT_PARAMS) };
  const pages = Number(u.get('pages') ?? '1');
  return { view: 'search', query: pick(u, SEARCH_PARAMS), pages: Number.isInteger(pages) && pages >= 1 ? Math.min(pages, MAX_PAGES) : 1 };
}

export function searchHref(query: URLSearchParams, pages = 1): string {
  const u = pick(query, SEARCH_PARAMS);
  if (pages > 1) u.set('pages', String(pages));
  const s = u.toString();
  return s ? `/?${s}` : '/';
}

export function productHref(productId: number | string, query: URLSearchParams = new URLSearchParams()): string {
  const u = new URLSearchParams({ view: 'product', productId: String(productId) });
  for (const [k, v] of pick(query, PRODUCT_PARAMS)) u.append(k, v);
  return `/?${u.toString()}`;
}

export const CART_HREF = '/?view=cart';

/** The search query with `value` of `param` ticked or unticked; a single-valued parameter holds one value at most. */
export function withValue(query: URLSearchParams, param: string, value: string, on: boolean, multi: boolean): URLSearchParams {
  const out = new URLSearchParams(query);
  const kept = multi ? out.getAll(param).filter((v) => v !== value) : [];
  out.delete(param);
  for (const v of kept) out.append(param, v);
  if (on) out.append(param, value);
  return out;
}

/** The query with `param` set to `value`, or removed when `value` is empty or the default. */
export function withParam(query: URLSearchParams, param: string, value: string, defaultValue = ''): URLSearchParams {
  const out = new URLSearchParams(query);
  if (value === '' || value === defaultValue) out.delete(param);
  else out.set(param, value);
  return out;
}

/** Query string of an API path (`?a=1&b=2`, or nothing). */
export function qs(query: URLSearchParams): string {
  const s = query.toString();
  return s ? `?${s}` : '';
}
