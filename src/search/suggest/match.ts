import { compareCodePoints, fold, terms } from '../text.js';
import { termMatch, type TermMatch } from './typos.js';

/** How a typed term matches a name term (typos.ts termMatch, or what a caller already knows of it). */
export type TermMatcher = (typed: string, term: string) => TermMatch;

// Which product names a suggestion query matches, how closely, and in what order (pure; the
// index path and the PostgreSQL path share it, so both answer alike). docs/search-design.md,
// "Suggestions".

/** How a name matches the query's terms. */
export interface NameMatch {
  /** Typos summed over the query's terms, each at its closest name term. */
  typos: number;
  /** The last query term matched a whole name term (not only a prefix of one) with those typos. */
  whole: boolean;
  /**
   * Each query term's closest whole name term (index into the name's terms) and the typos summed
   * over them, when every term, the last one too, is within its budget of a whole name term: the
   * spelling a correction would use. null when the last term only matches as a prefix.
   */
  asWords: { termIndexes: number[]; typos: number } | null;
}

/**
 * The closest name term to `typed` as a whole word within budget: [index, typos], or null. Of
 * equally close terms, one no earlier query term took (`used`), then the first.
 */
function closestWord(typed: string, nameTerms: readonly string[], used: readonly number[], match: TermMatcher): [number, number] | null {
  let best: [number, number] | null = null;
  for (const [i, t] of nameTerms.entries()) {
    const d = typed === t ? 0 : match(typed, t).whole;
    if (d === null) continue;
    if (best === null || d < best[1] || (d === best[1] && used.includes(best[0]) && !used.includes(i))) best = [i, d];
  }
  return best;
}

/**
 * Every query term but the last must be, within budget, a whole term of the name; the last must
 * be within budget of a prefix of a name term (a whole term is one of its prefixes). null when
 * the name does not match.
 */
export function matchName(queryTerms: readonly string[], nameTerms: readonly string[], match: TermMatcher = termMatch): NameMatch | null {
  if (queryTerms.length === 0) return null;
  const indexes: number[] = [];
  let typos = 0;
  for (const q of queryTerms.slice(0, -1)) {
    const w = closestWord(q, nameTerms, indexes, match);
    if (w === null) return null;
    indexes.push(w[0]);
    typos += w[1];
  }
  const last = queryTerms[queryTerms.length - 1]!;
  let prefix = Infinity;
  for (const t of nameTerms) {
    const d = t.startsWith(last) ? 0 : match(last, t).prefix;
    if (d !== null && d < prefix) prefix = d;
  }
  if (prefix === Infinity) return null;
  const word = closestWord(last, nameTerms, indexes, match);
  const whole = word !== null && word[1] <= prefix;
  return {
    typos: typos + prefix,
    whole,
    asWords: word === null ? null : { termIndexes: [...indexes, word[0]], typos: typos + word[1] },
  };
}

/** A matching name and what ranks it. */
export interface Candidate {
  /** The name in its display spelling. */
  name: string;
  match: NameMatch;
  /** Products GET /search?keyword=<name> lists in the same scope (or, before they are counted, an estimate of them). */
  productCount: number;
  /** The name folded (text.ts fold), when the caller holds it: ties are broken by it. */
  folded?: string;
}

/** Fewer typos first, then whole words before prefixes, then more products, then name (folded, then as written). */
export function compareCandidates(a: Candidate, b: Candidate): number {
  return (
    a.match.typos - b.match.typos ||
    Number(!a.match.whole) - Number(!b.match.whole) ||
    b.productCount - a.productCount ||
    compareCodePoints(a.folded ?? fold(a.name), b.folded ?? fold(b.name)) ||
    compareCodePoints(a.name, b.name)
  );
}

/** What a caller may already hold of a name (the in-memory catalog holds both). */
export interface KnownName {
  terms: readonly string[];
  folded: string;
}

/**
 * The candidates among `names` (display name -> product count), ranked. `known`: a name's terms
 * and folding when the caller holds them; `match`: the query terms' matches when the caller has
 * them already.
 */
export function rankNames(
  queryTerms: readonly string[],
  names: Iterable<[string, number]>,
  known?: (name: string) => KnownName,
  match: TermMatcher = termMatch,
): Candidate[] {
  const out: Candidate[] = [];
  for (const [name, productCount] of names) {
    const k = known?.(name);
    const m = matchName(queryTerms, k?.terms ?? terms(name), match);
    if (m !== null) out.push({ name, match: m, productCount, ...(k ? { folded: k.folded } : {}) });
  }
  return out.sort(compareCandidates);
}

/**
 * A name's terms as the name writes them: each run of letters, digits and marks of the display
 * name whose folding is one term keeps its own spelling (`Charizard`, `Pokémon`); a run folding
 * into several terms (a ligature, a fraction) gives the folded terms.
 */
export function displayTerms(name: string): string[] {
  const out: string[] = [];
  for (const run of name.match(/[\p{L}\p{M}\p{Nd}\p{No}]+/gu) ?? []) {
    const folded = terms(run);
    if (folded.length === 1) out.push(run);
    else out.push(...folded);
  }
  // Anything the runs missed (characters folding into letters or digits from elsewhere): the folded terms.
  return out.length === terms(name).length ? out : terms(name);
}

/**
 * The closest spelling of the query that the candidates' names show: each query term replaced by
 * its closest whole name term, written as the name writes it; the fewest typos first, then the
 * name with more products, then by name. null when no candidate matches every term as a word.
 */
export function correctionOf(candidates: readonly Candidate[]): string | null {
  let best: Candidate | null = null;
  for (const c of candidates) {
    const w = c.match.asWords;
    if (w === null) continue;
    const bw = best?.match.asWords;
    if (
      best === null ||
      w.typos < bw!.typos ||
      (w.typos === bw!.typos && (c.productCount > best.productCount || (c.productCount === best.productCount && compareCandidates(c, best) < 0)))
    ) {
      best = c;
    }
  }
  if (best === null) return null;
  const spelled = displayTerms(best.name);
  return best.match.asWords!.termIndexes.map((i) => spelled[i]!).join(' ');
}
