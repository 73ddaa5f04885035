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

const DIM_INDEX: Record<Dim, number> = { c: 0, l: 1, f: 2, m: 3, s: 4 };

/** Every set of two or three dimensions, in DIMS order (index: their positions in DIMS). */
const COMBOS: { dims: Dim[]; index: number[]; field: string }[] = [];
for (let size = 2; size <= MAX_COMBO; size++) {
  for (let mask = 0; mask < 1 << DIMS.length; mask++) {
    const dims = DIMS.filter((_, i) => mask & (1 << i));
    if (dims.length !== size) continue;
    COMBOS.push({ dims, index: dims.map((d) => DIM_INDEX[d]), field: comboField(dims) });
  }
}

/** The card field of a set of dimensions (given in DIMS order), e.g. x_cl. */
export function comboField(dims: readonly Dim[]): string {
  return `x_${dims.join('')}`;
}

/**
 * The combination fields of a card: per set of two or three dimensions, the sorted distinct
 * tuples of its groups (a group with a null value in the set contributes none: a null never
 * matches a filter nor shows in a facet). Each dimension's distinct values get small numbers on
 * this card, so tuples are told apart as numbers and only distinct ones become strings (a card
 * has many groups and few distinct tuples).
 */
export function comboValues(groups: readonly CardGroup[]): Record<string, string[]> {
  const n = groups.length;
  const W = DIMS.length;
  if (scratch.length < n * W) scratch = new Int32Array(Math.max(n * W, scratch.length * 2));
  if (keys.length < n) keys = new Float64Array(Math.max(n, keys.length * 2));
  // The number of group j's value in dimension d at j * W + d (-1 for null): its index in values[d].
  const at = scratch;
  const values: string[][] = [[], [], [], [], []];
  for (let j = 0; j < n; j++) {
    const g = groups[j]!;
    at[j * W] = numberOf(values[0]!, g.condition);
    at[j * W + 1] = numberOf(values[1]!, g.language);
    at[j * W + 2] = numberOf(values[2]!, g.finish);
    at[j * W + 3] = numberOf(values[3]!, g.checkoutMode);
    at[j * W + 4] = numberOf(values[4]!, g.sellerFacet);
  }
  const out: Record<string, string[]> = {};
  for (const c of COMBOS) {
    const dims = c.index;
    let radix = 1;
    for (const d of dims) radix *= values[d]!.length;
    if (radix === 0) continue;
    // A tuple's number (its values' numbers in mixed radix) is exact while it fits a double's
    // integers; beyond that (never on a real card), its numbers as text.
    const exact = radix <= Number.MAX_SAFE_INTEGER;
    const seen = exact && n <= 64 ? null : new Set<number | string>();
    let distinct = 0;
    const tuples: string[] = [];
    for (let j = 0; j < n; j++) {
      let key = 0;
      let text = '';
      for (const d of dims) {
        const k = at[j * W + d]!;
        if (k < 0) {
          key = -1;
          break;
        }
        if (exact) key = key * values[d]!.length + k;
        else text += `${k},`;
      }
      if (key < 0) continue;
      if (seen) {
        const id = exact ? key : text;
        if (seen.has(id)) continue;
        seen.add(id);
      } else {
        let i = 0;
        while (i < distinct && keys[i] !== key) i++;
        if (i < distinct) continue;
        keys[distinct++] = key;
      }
      let t = values[dims[0]!]![at[j * W + dims[0]!]!]!;
      for (let i = 1; i < dims.length; i++) t += SEP + values[dims[i]!]![at[j * W + dims[i]!]!]!;
      tuples.push(t);
    }
    if (tuples.length === 0) continue;
    if (tuples.length > 1) {
      tuples.sort(byCodeUnits);
      // Distinct values give distinct tuples (no value but the seller's holds SEP, and it is last);
      // equal neighbours are dropped all the same, so the result is the set of tuple strings.
      let w = 1;
      for (let i = 1; i < tuples.length; i++) if (tuples[i] !== tuples[w - 1]) tuples[w++] = tuples[i]!;
      tuples.length = w;
    }
    out[c.field] = tuples;
  }
  return out;
}

// Reused between calls (one thread): the value numbers of a card's groups, a combination's tuple numbers.
let scratch = new Int32Array(1024);
let keys = new Float64Array(64);

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The index of v in values, added if new; -1 for null. A card has few distinct values per
 * dimension: a scan, and past SCAN_MAX an index by value (kept on the array).
 */
const SCAN_MAX = 32;
function numberOf(values: string[] & { index?: Map<string, number> }, v: string | null): number {
  if (v === null) return -1;
  if (values.index) {
    const got = values.index.get(v);
    if (got !== undefined) return got;
    values.index.set(v, values.length);
    return values.push(v) - 1;
  }
  for (let i = 0; i < values.length; i++) if (values[i] === v) return i;
  if (values.length === SCAN_MAX) values.index = new Map(values.map((x, i) => [x, i]));
  values.index?.set(v, values.length);
  return values.push(v) - 1;
}
