// Typo tolerance of suggestions (docs/search-design.md, "Suggestions"): a term's budget by its
// length, and the restricted Damerau-Levenshtein distance (optimal string alignment: insert,
// delete, replace, or swap two neighbours, each one typo), the distance Elasticsearch's fuzzy
// queries count with `transpositions: true`. Terms are folded (text.ts) and compared by code point.

/** Typos a term of `length` code points may carry: 0 under 5, 1 from 5 to 8, 2 from 9. */
export function typoBudget(length: number): number {
  return length < 5 ? 0 : length < 9 ? 1 : 2;
}

export interface TermDistance {
  /** Typos between the query term and the whole name term. */
  whole: number;
  /** Fewest typos between the query term and any prefix of the name term (never more than `whole`). */
  prefix: number;
}

/**
 * Both distances of `query` to `term` from one alignment table: `whole` is its last cell, `prefix`
 * the least of its last row (the query against every prefix of the term).
 */
export function termDistance(query: string, term: string): TermDistance {
  const a = Array.from(query);
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
  return { whole: prev[b.length]!, prefix: Math.min(...prev) };
}
