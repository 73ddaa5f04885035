// Offer groups and combination keys of product cards (docs/search-design.md, "Offer-level
// filters"). Every offer-level filter is a function of an offer's sku (condition, language,
// finish) and its store (seller, checkoutMode), so a product's shown offers grouped by (sku, store)
// answer every combination exactly: "an offer in Near Mint, English, from store X" is "a group
// with those values". The card keeps its groups (nested, for the items and for selections of four
// or five dimensions) and, for every set of two or three dimensions, the distinct value tuples of
// its groups as one multi-valued keyword: a pair or triple selection is then a term on the card.

/**
 * One shown (sku, store) group of a product, as stored on its card (`groups`). No price: a price
 * change must not rewrite the card (docs/indexing.md); search reads prices from the offers.
 */
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
}

/** What names a group and what its values are: a card's group, or the offer document it comes from. */
export type GroupSource = Pick<
  CardGroup,
  'skuId' | 'storeKey' | 'lane' | 'checkoutMode' | 'sellerCode' | 'sellerFacet' | 'condition' | 'language' | 'finish' | 'isSealed'
>;

/**
 * A group as one short string: `skuId|storeKey|` and a 53-bit hash of its values. A card stores
 * these (`groupKeys`, a stored field) so the indexer can tell whether a card shows an offer as it
 * is from a few bytes per group, without reading the card's source (indexer/stale-cards.ts).
 */
export function groupKey(g: GroupSource): string {
  return `${g.skuId}|${g.storeKey}|${hash53(JSON.stringify([g.lane, g.checkoutMode, g.sellerCode, g.sellerFacet, g.condition, g.language, g.finish, g.isSealed]))}`;
}

/** The part of a group key that names the group (its sku and store). */
export const groupName = (skuId: number, storeKey: string): string => `${skuId}|${storeKey}|`;

/**
 * cyrb53 (a public-domain 53-bit string hash), in base 36. Two different values collide with a
 * chance of about 2^-53: a card would then be left as it is when it should have been rewritten.
 */
export function hash53(s: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
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

/** A card's distinct values of each dimension (DIMS order), sorted by code units, and its combination fields. */
export interface CardValues {
  values: string[][];
  /** The non-empty combination fields in COMBOS order, and their tuples (fields[i] -> tuples[i]). */
  fields: string[];
  tuples: string[][];
}

/**
 * The combination fields of a card: per set of two or three dimensions, the sorted distinct
 * tuples of its groups (a group with a null value in the set contributes none: a null never
 * matches a filter nor shows in a facet).
 */
export function comboValues(groups: readonly CardGroup[]): Record<string, string[]> {
  const { fields, tuples } = cardValues(groups);
  const out: Record<string, string[]> = {};
  for (let i = 0; i < fields.length; i++) out[fields[i]!] = tuples[i]!;
  return out;
}

/**
 * A card's values and combination fields. Each dimension's distinct values are numbered in
 * code-unit order (a card has few per dimension), and a tuple's number is its values' numbers in
 * mixed radix. Tuples then sort as numbers exactly as their joined strings sort: SEP is the
 * lowest code unit and only the last value (the seller's) may hold it, so two joined tuples first
 * differ within their first unequal values, or where the shorter of the two ends and SEP (or the
 * end of the whole string, for the last value) meets a higher code unit of the longer: either way
 * the strings compare as those two values do. Distinct values being distinct strings, distinct
 * numbers are distinct tuples, and only those become strings.
 */
export function cardValues(groups: readonly CardGroup[]): CardValues {
  const n = groups.length;
  if (scratch.length < n * W) scratch = new Int32Array(Math.max(n * W, scratch.length * 2));
  if (keys.length < n) keys = new Int32Array(Math.max(n, keys.length * 2));
  const values = numberValues(groups);
  for (let d = 0; d < W; d++) values[d] = renumberSorted(values[d]!, d, n);
  // A value followed by SEP, for every dimension but the seller (last in every tuple).
  const withSep = values.slice(0, W - 1).map((vs) => vs.map((v) => v + SEP));
  const fields: string[] = [];
  const combos: string[][] = [];
  for (const c of COMBOS) {
    const tuples = comboTuples(c.index, values, withSep, n);
    if (tuples.length === 0) continue;
    fields.push(c.field);
    combos.push(tuples);
  }
  return { values, fields, tuples: combos };
}

/** Each dimension's distinct values in first-seen order, and every group's value numbers into them (scratch). */
function numberValues(groups: readonly CardGroup[]): string[][] {
  const values: string[][] = [[], [], [], [], []];
  for (let j = 0; j < groups.length; j++) {
    const g = groups[j]!;
    scratch[j * W] = numberOf(values[0]!, g.condition);
    scratch[j * W + 1] = numberOf(values[1]!, g.language);
    scratch[j * W + 2] = numberOf(values[2]!, g.finish);
    scratch[j * W + 3] = numberOf(values[3]!, g.checkoutMode);
    scratch[j * W + 4] = numberOf(values[4]!, g.sellerFacet);
  }
  return values;
}

/** Dimension d's values sorted by code units, with the groups' numbers (scratch) moved to match. */
function renumberSorted(seen: string[], d: number, n: number): string[] {
  if (seen.length < 2) return seen;
  const sorted = sortByCodeUnits(seen.slice());
  const rank = ranks.length >= seen.length ? ranks : (ranks = new Int32Array(seen.length * 2));
  const index = (seen as Numbered).index;
  for (let i = 0; i < sorted.length; i++) rank[index ? index.get(sorted[i]!)! : seen.indexOf(sorted[i]!)] = i;
  for (let j = 0; j < n; j++) {
    const k = scratch[j * W + d]!;
    if (k >= 0) scratch[j * W + d] = rank[k]!;
  }
  return sorted;
}

/**
 * The sorted distinct tuples of one combination of dimensions (their indexes in DIMS) over the
 * groups, as joined strings; groups with a null among them give none.
 */
function comboTuples(dims: readonly number[], values: string[][], withSep: string[][], n: number): string[] {
  let radix = 1;
  for (const d of dims) radix *= values[d]!.length;
  if (radix === 0) return [];
  // Integer arithmetic while a tuple's number fits 31 bits; beyond that (never on a real card:
  // three dimensions of over a thousand values each), as strings.
  if (radix > 0x7fffffff) return textTuples(values, dims, n);
  // Each group's tuple number: its values' numbers in mixed radix.
  let m = 0;
  for (let j = 0; j < n; j++) {
    let key = 0;
    for (const d of dims) {
      const k = scratch[j * W + d]!;
      if (k < 0) {
        key = -1;
        break;
      }
      key = key * values[d]!.length + k;
    }
    if (key >= 0) keys[m++] = key;
  }
  sortKeys(m);
  // The distinct numbers back to strings, the last value first.
  const tuples: string[] = [];
  const last = dims.length - 1;
  for (let i = 0; i < m; i++) {
    let key = keys[i]!;
    if (i > 0 && key === keys[i - 1]) continue;
    let len = values[dims[last]!]!.length;
    let t = values[dims[last]!]![key % len]!;
    for (let p = last - 1; p >= 0; p--) {
      key = (key / len) | 0;
      len = values[dims[p]!]!.length;
      t = withSep[dims[p]!]![key % len]! + t;
    }
    tuples.push(t);
  }
  return tuples;
}

// Reused between calls (one thread): the value numbers of a card's groups (scratch[j * W + d]: the
// number of group j's value in dimension d, -1 for null), a combination's tuple numbers, a
// dimension's first-seen numbers to their sorted ones.
const W = DIMS.length;
let scratch = new Int32Array(1024);
let keys = new Int32Array(64);
let ranks = new Int32Array(64);

/** Sorts keys[0, m): by insertion while few (a typed array's sort costs more to call). */
function sortKeys(m: number): void {
  if (m > 32) {
    keys.subarray(0, m).sort();
    return;
  }
  for (let i = 1; i < m; i++) {
    const v = keys[i]!;
    let p = i - 1;
    while (p >= 0 && keys[p]! > v) {
      keys[p + 1] = keys[p]!;
      p--;
    }
    keys[p + 1] = v;
  }
}

/** Compares strings by UTF-16 code units (what `sort()` without a comparator does). */
export const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Sorts strings in place by code units: by insertion while few (cheaper than calling sort). */
export function sortByCodeUnits(a: string[]): string[] {
  if (a.length > 32) return a.sort();
  for (let i = 1; i < a.length; i++) {
    const v = a[i]!;
    let p = i - 1;
    while (p >= 0 && a[p]! > v) {
      a[p + 1] = a[p]!;
      p--;
    }
    a[p + 1] = v;
  }
  return a;
}

/** The sorted distinct tuples of a combination from the groups' value numbers, as joined strings. */
function textTuples(values: string[][], dims: readonly number[], n: number): string[] {
  const tuples = new Set<string>();
  for (let j = 0; j < n; j++) {
    if (dims.some((d) => scratch[j * W + d]! < 0)) continue;
    tuples.add(dims.map((d) => values[d]![scratch[j * W + d]!]!).join(SEP));
  }
  return [...tuples].sort(byCodeUnits);
}

type Numbered = string[] & { index?: Map<string, number> };

/**
 * The index of v in values, added if new; -1 for null. A card has few distinct values per
 * dimension: a scan, and past SCAN_MAX an index by value (kept on the array).
 */
const SCAN_MAX = 32;
function numberOf(values: Numbered, v: string | null): number {
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
