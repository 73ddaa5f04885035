import type { TermMatcher } from './match.js';
import { pairBudget, queryFuzziness, type TermMatch } from './typos.js';

// The distinct name terms as a trie, walked with one column of the alignment table per node (the
// distance of each prefix of the typed term to the node's prefix), so a typed term finds every term
// within its budget -- as a whole word or through a prefix -- by visiting only the nodes within the
// budget's reach, not every term: the same distance and budgets as typos.ts's termMatch. Pure.

interface Node {
  children: Map<string, Node>;
  /** The term ending here (its index in `terms`), or -1. */
  term: number;
  /** The terms under this node (itself included): terms[lo, hi), sorted. */
  lo: number;
  hi: number;
}

export interface TermTrie {
  /** The distinct terms, sorted by code point. */
  readonly terms: readonly string[];
  readonly root: Node;
}

/** A term the typed one reaches: `whole` and `prefix` as termMatch gives them. */
export interface TermHit {
  term: number;
  whole: number | null;
  prefix: number | null;
}

const newNode = (): Node => ({ children: new Map(), term: -1, lo: 0, hi: 0 });

export function termTrie(distinct: Iterable<string>): TermTrie {
  const terms = [...new Set(distinct)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const root = newNode();
  root.hi = terms.length;
  for (const [i, t] of terms.entries()) {
    let node = root;
    for (const ch of t) {
      let next = node.children.get(ch);
      if (next === undefined) {
        next = newNode();
        next.lo = i;
        node.children.set(ch, next);
      }
      next.hi = i + 1;
      node = next;
    }
    node.term = i;
  }
  return { terms, root };
}

/**
 * Every term `typed` is within budget of, as a whole term or through one of its prefixes (`asLast`:
 * the prefix match counts; otherwise only whole terms are wanted and prefix-only hits are left out).
 */
export function termsWithin(trie: TermTrie, typed: string, asLast: boolean): TermHit[] {
  const a = Array.from(typed);
  const n = a.length;
  const reach = queryFuzziness(n);
  const out: TermHit[] = [];
  const first = Array.from({ length: n + 1 }, (_, i) => i);
  const min = (col: readonly number[]) => col.reduce((m, v) => (v < m ? v : m), Infinity);
  // `best`: the fewest typos of the typed term to a prefix of this node's prefix, within budget.
  const visit = (node: Node, depth: number, col: number[], grand: number[] | null, parentChar: string, best: number | null) => {
    const atEnd = col[n]!;
    const here = atEnd <= pairBudget(n, depth) ? atEnd : null;
    const prefix = here !== null && (best === null || here < best) ? here : best;
    if (node.term >= 0) {
      const whole = here;
      if (whole !== null || (asLast && prefix !== null)) out.push({ term: node.term, whole, prefix });
    }
    // No deeper prefix comes within reach: the column's least cell, or a swap through the one before.
    if (min(col) > reach && (grand === null || min(grand) >= reach)) {
      if (asLast && prefix !== null) {
        for (let t = node.lo; t < node.hi; t++) if (t !== node.term) out.push({ term: t, whole: null, prefix });
      }
      return;
    }
    for (const [ch, child] of node.children) {
      const next = new Array<number>(n + 1);
      next[0] = depth + 1;
      for (let i = 1; i <= n; i++) {
        const cost = a[i - 1] === ch ? 0 : 1;
        let d = Math.min(col[i]! + 1, next[i - 1]! + 1, col[i - 1]! + cost);
        if (grand !== null && i > 1 && a[i - 1] === parentChar && a[i - 2] === ch) d = Math.min(d, grand[i - 2]! + 1);
        next[i] = d;
      }
      visit(child, depth + 1, next, col, ch, prefix);
    }
  };
  visit(trie.root, 0, first, null, '', null);
  return out;
}

/**
 * The names having, for every query term, a term within its budget (the last through a prefix):
 * a necessary condition matchName then confirms, with `match` answering matchName from what the
 * walk found (no alignment table per name term). `namesOf`: the names having a term.
 */
export function candidateNames(
  trie: TermTrie,
  queryTerms: readonly string[],
  namesOf: (term: string) => Iterable<number>,
): { names: Set<number>; match: TermMatcher } {
  const found = new Map<string, Map<string, TermMatch>>();
  let names: Set<number> | null = null;
  for (const [k, typed] of queryTerms.entries()) {
    const having = new Set<number>();
    const seen = found.get(typed) ?? new Map<string, TermMatch>();
    found.set(typed, seen);
    for (const hit of termsWithin(trie, typed, k === queryTerms.length - 1)) {
      const term = trie.terms[hit.term]!;
      if (!seen.has(term) || hit.prefix !== null) seen.set(term, { whole: hit.whole, prefix: hit.prefix });
      for (const id of namesOf(term)) if (names === null || names.has(id)) having.add(id);
    }
    names = having;
    if (names.size === 0) break;
  }
  const none: TermMatch = { whole: null, prefix: null };
  return { names: names ?? new Set(), match: (typed, term) => found.get(typed)?.get(term) ?? none };
}
