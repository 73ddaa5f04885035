import { terms } from '../text.js';
import { matchName } from './match.js';
import { pairBudget, termMatch } from './typos.js';

// The catalog's distinct names held in memory for the suggestion fallback (Degraded Mode): the
// names matching a query are found through their distinct folded terms (a few thousand, where
// the names are tens of thousands and the products hundreds of thousands), then confirmed by
// matchName, the rule the index path applies. Pure: built from rows, asked with query terms.

export interface NameCatalog {
  readonly names: readonly string[];
  /** The products carrying names[i]. */
  readonly productIds: readonly (readonly number[])[];
  /** Each distinct folded term, with the indexes of the names having it. */
  readonly byTerm: ReadonlyMap<string, readonly number[]>;
  /** Products over all names. */
  readonly products: number;
}

export function nameCatalog(rows: readonly { name: string; productIds: readonly number[] }[]): NameCatalog {
  const byTerm = new Map<string, number[]>();
  let products = 0;
  for (const [i, r] of rows.entries()) {
    products += r.productIds.length;
    for (const t of new Set(terms(r.name))) {
      const list = byTerm.get(t);
      if (list) list.push(i);
      else byTerm.set(t, [i]);
    }
  }
  return { names: rows.map((r) => r.name), productIds: rows.map((r) => r.productIds), byTerm, products };
}

/** `typed` is within budget of the whole term `t` (a shorter or longer term by more than the budget never is). */
function wordWithin(typed: string, typedLength: number, t: string): boolean {
  if (typed === t) return true;
  const length = Array.from(t).length;
  if (Math.abs(length - typedLength) > pairBudget(typedLength, length)) return false;
  return termMatch(typed, t).whole !== null;
}

/** `typed` is within budget of a prefix of `t` (t shorter than the typed term by more than 2 never is). */
function prefixWithin(typed: string, typedLength: number, t: string): boolean {
  if (t.startsWith(typed)) return true;
  if (Array.from(t).length < typedLength - 2) return false;
  return termMatch(typed, t).prefix !== null;
}

/**
 * The indexes of the names matchName accepts for the query's terms: the names having, for every
 * query term but the last, a term within budget of it, and for the last a term it is within
 * budget of a prefix of (a necessary condition, read off the distinct terms), then matchName.
 */
export function matchingNames(catalog: NameCatalog, queryTerms: readonly string[]): number[] {
  if (queryTerms.length === 0) return [];
  let candidates: Set<number> | null = null;
  for (const [k, q] of queryTerms.entries()) {
    const last = k === queryTerms.length - 1;
    const length = Array.from(q).length;
    const having = new Set<number>();
    for (const [t, names] of catalog.byTerm) {
      if (!(last ? prefixWithin(q, length, t) : wordWithin(q, length, t))) continue;
      for (const i of names) if (candidates === null || candidates.has(i)) having.add(i);
    }
    candidates = having;
    if (candidates.size === 0) return [];
  }
  return [...candidates!].filter((i) => matchName(queryTerms, terms(catalog.names[i]!)) !== null).sort((a, b) => a - b);
}
