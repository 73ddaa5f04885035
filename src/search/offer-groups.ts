// Offer groups and combination keys of product cards (docs/search-design.md, "Offer-level
// filters"). Every offer-level filter is a function of an offer's sku (condition, language,
// finish) and its store (seller, checkoutMode), so a product's shown offers grouped by (sku, store)
// answer every combination exactly: "an offer in Near Mint, English, from store X" is "a group
// with those values". The card keeps its groups (nested, for the items and for selections of four
// or five dimensions) and, for every set of two or three dimensions, the distinct value tuples of
// its groups as one multi-valued keyword: a pair or triple selection is then a term on the card.

/** One shown (sku, store) group of a product, as stored on its card (`groups`). */
export interface CardGroup {
  skuId: number;
  storeKey: string;
  lane: 'native' | 'handoff';
  checkoutMode: 'express' | 'manual';
  sellerCode: string | null;
  /** sellerCode + U+0000 + storeName (the seller facet's value). */
  sellerFacet: string | null;
  condition: string | null;
  language: string | null;
  finish: string | null;
  isSealed: boolean;
  /** Lowest price among the group's shown offers. */
  price: number;
}

/**
 * The offer dimensions: condition, language, finish, checkoutMode (m), seller. The seller is last
 * in every tuple, so a tuple with a fixed seller code is a prefix: its value is the facet value
 * (sellerCode + U+0000 + storeName), whose name a query does not know.
 */
export const DIMS = ['c', 'l', 'f', 'm', 's'] as const;
export type Dim = (typeof DIMS)[number];

/**
 * Between a tuple's values. PostgreSQL text cannot hold U+0000, so no catalog value, seller code
 * or store name contains it: a tuple of n dimensions splits into exactly n values (n + 1 pieces
 * with the seller, whose value holds one U+0000 itself), and a buyer's value containing it
 * matches nothing, as it matches no offer.
 */
export const SEP = '\u0000';

/** Combination keys cover sets of at most this many dimensions; larger selections use nested queries. */
export const MAX_COMBO = 3;

/** Every set of two or three dimensions, in DIMS order, with the index of its set minus its last dimension. */
const COMBOS: { dims: Dim[]; field: string; parent: number }[] = [];
for (let size = 2; size <= MAX_COMBO; size++) {
  for (let mask = 0; mask < 1 << DIMS.length; mask++) {
    const dims = DIMS.filter((_, i) => mask & (1 << i));
    if (dims.length !== size) continue;
    const head = dims.slice(0, -1).join('');
    COMBOS.push({ dims, field: comboField(dims), parent: size === 2 ? -1 : COMBOS.findIndex((c) => c.dims.join('') === head) });
  }
}

/** The card field of a set of dimensions (given in DIMS order), e.g. x_cl. */
export function comboField(dims: readonly Dim[]): string {
  return `x_${dims.join('')}`;
}

const DIM_INDEX: Record<Dim, number> = { c: 0, l: 1, f: 2, m: 3, s: 4 };

/**
 * The combination fields of a card: per set of two or three dimensions, the sorted distinct
 * tuples of its groups (a group with a null value in the set contributes none: a null never
 * matches a filter nor shows in a facet). Each tuple is one concatenation onto its parent's.
 */
export function comboValues(groups: readonly CardGroup[]): Record<string, string[]> {
  const sets: Set<string>[] = COMBOS.map(() => new Set());
  const tuple: (string | null)[] = new Array<string | null>(COMBOS.length);
  for (const g of groups) {
    const v: (string | null)[] = [g.condition, g.language, g.finish, g.checkoutMode, g.sellerFacet];
    for (let i = 0; i < COMBOS.length; i++) {
      const c = COMBOS[i]!;
      const last = v[DIM_INDEX[c.dims[c.dims.length - 1]!]] ?? null;
      const head = (c.parent < 0 ? v[DIM_INDEX[c.dims[0]!]] : tuple[c.parent]) ?? null;
      const t = head === null || last === null ? null : head + SEP + last;
      tuple[i] = t;
      if (t !== null) sets[i]!.add(t);
    }
  }
  const out: Record<string, string[]> = {};
  for (let i = 0; i < COMBOS.length; i++) if (sets[i]!.size > 0) out[COMBOS[i]!.field] = [...sets[i]!].sort();
  return out;
}
