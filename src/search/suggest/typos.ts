// Typo tolerance of suggestions (docs/search-design.md, "Suggestions"): a budget by term length,
// and the restricted Damerau-Levenshtein distance (optimal string alignment: insert, delete,
// replace, or swap two neighbours, each one typo), the distance Elasticsearch's fuzzy queries
// count with `transpositions: true`. Terms are folded (text.ts) and compared by code point.

/** Typos a term of `length` code points may carry: 0 under 5, 1 from 5 to 8, 2 from 9. */
export function typoBudget(length: number): number {
  return length < 5 ? 0 : length < 9 ? 1 : 2;
}

/**
 * The budget of a typed term against a name term (or a prefix of one) is the budget of the longer
 * of the two: a letter left out of a 5-letter word is one typo, though 4 letters are typed.
 */
export const pairBudget = (typed: number, term: number): number => typoBudget(Math.max(typed, term));

/**
 * The most typos a typed term of `length` code points can be within budget of any term: what a
 * fuzzy query on it must allow (0 up to 3 characters, 1 from 4 to 6, 2 from 7).
 */
export function queryFuzziness(length: number): number {
  let k = 0;
  while (k < 2 && pairBudget(length, length + k + 1) >= k + 1) k++;
  return k;
}

export interface TermMatch {
  /** Typos between the typed term and the whole name term, when within their budget. */
  whole: number | null;
  /** Fewest typos between the typed term and a prefix of the name term within their budget (the whole term is one). */
  prefix: number | null;
}

/**
 * Both matches of `typed` against `term` from one alignment table: its last row holds the
 * distance of the typed term to every prefix of the name term.
 */
export function termMatch(typed: string, term: string): TermMatch {
  const a = Array.from(typed);
  const b = Array.from(term);
  const w = b.length + 1;
  // Three rows of the table: two back (for a swap), one back, and the current one.
  let before = new Array<number>(w).fill(0);
  let prev = Array.from({ length: w }, (_, j) => j);
  let row = new Array<number>(w).fill(0);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row[j] = d;
    }
    [before, prev, row] = [prev, row, before];
  }
  // `prev` now holds the last row.
  let prefix: number | null = null;
  for (let j = 1; j <= b.length; j++) {
    const d = prev[j]!;
    if (d <= pairBudget(a.length, j) && (prefix === null || d < prefix)) prefix = d;
  }
  const whole = prev[b.length]!;
  return { whole: whole <= pairBudget(a.length, b.length) ? whole : null, prefix };
}
