// Text folding per DECISIONS.md: NFKD, drop combining marks, lowercase. The integ-test build of
// Elasticsearch has no asciifolding filter, so folding happens here, once, for both indexing and
// querying; the index only ever sees folded text.

const COMBINING_MARKS = /\p{M}+/gu;
const TERM = /[\p{L}\p{Nd}]+/gu;

export function fold(text: string): string {
  return text.normalize('NFKD').replace(COMBINING_MARKS, '').toLowerCase();
}

/** Maximal runs of letters and digits of the folded text. */
export function terms(text: string): string[] {
  return fold(text).match(TERM) ?? [];
}

/**
 * Code points of the folded name a sort key keeps. A keyword term holds at most 32,766 UTF-8
 * bytes (a longer one makes Elasticsearch refuse the whole document); 1,000 code points are at
 * most 4,000 bytes, and names accepted at the edge are far shorter (NAME_MAX in the contract).
 */
export const SORT_KEY_NAME_CHARS = 1000;

/**
 * Sort key that orders products by folded name (code point order, which is also the UTF-8 byte
 * order Elasticsearch uses for keywords), ties by productId. U+0000 sorts below every character,
 * so a name that is a prefix of another sorts first; the zero-padded id breaks ties numerically.
 * Names longer than SORT_KEY_NAME_CHARS sort by their first SORT_KEY_NAME_CHARS code points.
 */
export function productSortKey(name: string | null, productId: number): string {
  return `${truncateCodePoints(fold(name ?? ''), SORT_KEY_NAME_CHARS)}\u0000${String(productId).padStart(10, '0')}`;
}

/** The first `max` code points of `s` (never half of a surrogate pair). */
function truncateCodePoints(s: string, max: number): string {
  if (s.length <= max) return s;
  let units = 0;
  let points = 0;
  for (const ch of s) {
    if (points === max) break;
    units += ch.length;
    points += 1;
  }
  return s.slice(0, units);
}

/** Compares strings by code point (JS `<` compares UTF-16 units, which differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done && y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}
