// Upper bounds of the catalog and store strings the service accepts at its edges (the fixture
// loader, seller writes): long enough for any real card, set or store, short enough that no value
// can break an index document or a page (docs/seller-api.md, "Length limits").

/**
 * Catalog values buyers filter by (set, category, rarity, collector number, condition, language,
 * finish): the buyer API's filter bound (api-contract.md: 1 to 255), so every stored value can be
 * asked for.
 */
export const FILTER_VALUE_MAX = 255;
/** Product names: the longest real card names are under 150 characters. */
export const NAME_MAX = 300;
/** Seller and handoff store names (shown in the seller facet and on every offer). */
export const STORE_NAME_MAX = 200;
/** URLs (image, webhook): the contract's trackingUrl bound. */
export const URL_MAX = 2048;
/** Short labels: a product detail's label, a shipping method, a tax label, a region. */
export const LABEL_MAX = 100;
/** One-line values: a detail's value, names and address lines of a customer, ids, secrets. */
export const LINE_MAX = 255;
/** Free text: buyer notes. */
export const TEXT_MAX = 2000;
/** Details (label and value pairs) per product. */
export const DETAILS_MAX = 100;
