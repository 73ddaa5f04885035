// Shared definitions of the two experimental document models of issue 14 (docs/search-scale.md):
//   nested  one document per product with a shown offer: the current card's fields plus `groups`,
//           a nested entry per shown (sku, store) group (every offer-level filter is a function of
//           the sku and the store, so a group matches a filter combination exactly when its offers do)
//   skus    one summary document per (product, sku) with a shown offer, grouped with collapse.
// Standalone: nothing under src/ or indexer/ imports this; it reuses their builders read-only.
import type { OfferDoc, ProductFields } from '../../src/search/documents/model.js';
import type { CardGroup } from '../../src/search/documents/offer-groups.js';

export const NESTED_INDEX = 'scale-nested';
export const COMBO_INDEX = 'scale-combo';
/** (c) trimmed: combination keys of two and three dimensions only; more fall back to nested. */
export const COMBO3_INDEX = 'scale-combo3';
export const COMBO3_MAX = 3;
export const SKUS_INDEX = 'scale-skus';

/** One shown (sku, store) group of a product: what every offer-level filter and the item need (the product's own type). */
export type Group = CardGroup;

export interface ProductGroups {
  fields: ProductFields;
  groups: Map<string, Group>;
}

// Strings repeat across millions of offers (sellerFacet is built per offer): keep one copy.
const interned = new Map<string, string>();
const intern = (s: string | null) => {
  if (s === null) return null;
  const got = interned.get(s);
  if (got !== undefined) return got;
  interned.set(s, s);
  return s;
};

/** Adds one offer document (shown ones only) to its product's groups. */
export function addOffer(products: Map<number, ProductGroups>, o: OfferDoc): void {
  if (!o.shown) return;
  let p = products.get(o.productId);
  if (!p) {
    const { sortKey, nameTerms, category, set, rarity, collectorNumber, item } = o;
    p = { fields: { sortKey, nameTerms, category, set, rarity, collectorNumber, item }, groups: new Map() };
    products.set(o.productId, p);
  }
  const key = `${o.skuId}|${o.storeKey}`;
  const g = p.groups.get(key);
  if (g) {
    g.price = Math.min(g.price, o.price);
    return;
  }
  p.groups.set(key, {
    skuId: o.skuId,
    storeKey: intern(o.storeKey)!,
    lane: o.lane,
    checkoutMode: o.checkoutMode,
    sellerCode: intern(o.sellerCode),
    sellerFacet: intern(o.sellerFacet),
    condition: intern(o.condition),
    language: intern(o.language),
    finish: intern(o.finish),
    isSealed: o.isSealed,
    price: o.price,
  });
}

const kw = { type: 'keyword' };
const kwFacet = { type: 'keyword', eager_global_ordinals: true };
const rootFields = {
  docType: kw,
  productId: { type: 'integer' },
  sortKey: kw,
  nameTerms: { type: 'text', analyzer: 'whitespace', norms: false, index_options: 'docs' },
  category: kwFacet,
  set: kwFacet,
  rarity: kwFacet,
  collectorNumber: kwFacet,
};

export const nestedMapping = {
  dynamic: 'strict',
  properties: {
    ...rootFields,
    // the current card's folded multi-valued fields: queries without offer-level filters use them
    condition: kwFacet,
    language: kwFacet,
    finish: kwFacet,
    sellerFacet: kwFacet,
    card: { type: 'object', enabled: false },
    groups: {
      type: 'nested',
      properties: {
        skuId: { type: 'integer' },
        storeKey: kw,
        lane: kw,
        checkoutMode: kw,
        sellerCode: kw,
        sellerFacet: kwFacet,
        condition: kwFacet,
        language: kwFacet,
        finish: kwFacet,
        isSealed: { type: 'boolean' },
        price: { type: 'integer' },
      },
    },
  },
};

export const skusMapping = {
  dynamic: 'strict',
  properties: {
    ...rootFields,
    skuId: { type: 'integer' },
    condition: kwFacet,
    language: kwFacet,
    finish: kwFacet,
    // multi-valued: the stores offering this sku
    sellerCode: kw,
    sellerFacet: kwFacet,
    checkoutMode: kw,
    storeKey: kw,
    lane: kw,
    isSealed: { type: 'boolean' },
    price: { type: 'integer' },
    item: { type: 'object', enabled: false },
  },
};

// ---- (c) cards with combination keys (docs/search-scale.md): for every set of two or more
// offer-level dimensions, the product's distinct value tuples over its shown groups, as one
// multi-valued keyword field. "Has a group with condition NM and language English" is then a term
// on the card (x_cl = "Near Mint\u0001English"), and a facet's disjunctive product count is a
// terms doc_count with an `include` regex fixing the other selected dimensions.
export const DIMS = ['c', 'l', 'f', 's', 'm'] as const;
export type Dim = (typeof DIMS)[number];
export const SEP = '\u0001';
/** A group's value of a dimension: seller is the facet value (sellerCode + U+0000 + storeName). */
export const dimValue = (g: Group, d: Dim): string | null =>
  d === 'c' ? g.condition : d === 'l' ? g.language : d === 'f' ? g.finish : d === 's' ? g.sellerFacet : g.checkoutMode;
/** Every subset of DIMS with at least two members, in DIMS order. */
export const COMBOS: Dim[][] = [];
for (let mask = 0; mask < 1 << DIMS.length; mask++) {
  const ds = DIMS.filter((_, i) => mask & (1 << i));
  if (ds.length >= 2) COMBOS.push(ds);
}
export const comboField = (ds: Dim[]) => `x_${ds.join('')}`;

export function comboFields(groups: Iterable<Group>, max: number = DIMS.length): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  const combos = COMBOS.filter((ds) => ds.length <= max);
  for (const g of groups) {
    for (const ds of combos) {
      const vs = ds.map((d) => dimValue(g, d));
      if (vs.some((v) => v === null)) continue; // a null never matches a filter nor shows in a facet
      (out[comboField(ds)] ??= new Set()).add(vs.join(SEP));
    }
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
}

export const comboMapping = {
  dynamic: 'strict',
  properties: {
    ...nestedMapping.properties,
    sellerCode: kw,
    checkoutMode: kwFacet,
    ...Object.fromEntries(COMBOS.map((ds) => [comboField(ds), kwFacet])),
  },
};

export const combo3Mapping = {
  dynamic: 'strict',
  properties: {
    ...nestedMapping.properties,
    sellerCode: kw,
    checkoutMode: kwFacet,
    ...Object.fromEntries(COMBOS.filter((ds) => ds.length <= COMBO3_MAX).map((ds) => [comboField(ds), kwFacet])),
  },
};

export const settings = { number_of_shards: 1, number_of_replicas: 0, max_result_window: 100_000 };
