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
 * matches a filter nor shows in a facet). Each dimension's distinct values get small numbers on
 * this card, so tuples are told apart as numbers and only distinct ones become strings (a card
 * has many groups and few distinct tuples).
 */
export function comboValues(groups: readonly CardGroup[]): Record<string, string[]> {
  const n = groups.length;
  const values: string[][] = DIMS.map(() => []);
  const numbers: Map<string, number>[] = DIMS.map(() => new Map());
  // The number of group j's value in dimension d at j * DIMS.length + d; -1 for null.
  const at = new Int32Array(n * DIMS.length);
  for (let j = 0; j < n; j++) {
    const g = groups[j]!;
    const v = [g.condition, g.language, g.finish, g.checkoutMode, g.sellerFacet];
    for (let d = 0; d < DIMS.length; d++) {
      const x = v[d] ?? null;
      let k = -1;
      if (x !== null) {
        k = numbers[d]!.get(x) ?? -1;
        if (k < 0) {
          k = values[d]!.push(x) - 1;
          numbers[d]!.set(x, k);
        }
      }
      at[j * DIMS.length + d] = k;
    }
  }
  const out: Record<string, string[]> = {};
  for (const c of COMBOS) {
    const dims = c.dims.map((d) => DIM_INDEX[d]);
    let radix = 1;
    for (const d of dims) radix *= values[d]!.length;
    if (radix === 0) continue;
    // A tuple's number is exact while it fits a double's integers; beyond that, its digits as text.
    const seen = new Set<number | string>();
    const tuples: string[] = [];
    for (let j = 0; j < n; j++) {
      let key = 0;
      let text = '';
      for (const d of dims) {
        const k = at[j * DIMS.length + d]!;
        if (k < 0) {
          key = -1;
          break;
        }
        if (radix <= Number.MAX_SAFE_INTEGER) key = key * values[d]!.length + k;
        else text += `${k},`;
      }
      if (key < 0) continue;
      const id = radix <= Number.MAX_SAFE_INTEGER ? key : text;
      if (seen.has(id)) continue;
      seen.add(id);
      let t = values[dims[0]!]![at[j * DIMS.length + dims[0]!]!]!;
      for (let i = 1; i < dims.length; i++) t += SEP + values[dims[i]!]![at[j * DIMS.length + dims[i]!]!]!;
      tuples.push(t);
    }
    if (tuples.length === 0) continue;
    tuples.sort();
    // Distinct values give distinct tuples (no value but the seller's holds SEP, and it is last);
    // equal neighbours are dropped all the same, so the result is the set of tuple strings.
    let w = 1;
    for (let i = 1; i < tuples.length; i++) if (tuples[i] !== tuples[w - 1]) tuples[w++] = tuples[i]!;
    tuples.length = w;
    out[c.field] = tuples;
  }
  return out;
}
