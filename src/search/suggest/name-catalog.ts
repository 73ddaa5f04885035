import { terms } from '../text.js';
import { matchName } from './match.js';
import { candidateNames, termTrie, type TermTrie } from './term-trie.js';

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
  /** The distinct terms, walked for the terms within a query term's budget. */
  readonly trie: TermTrie;
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
  return { names: rows.map((r) => r.name), productIds: rows.map((r) => r.productIds), byTerm, products, trie: termTrie(byTerm.keys()) };
}

/** The indexes of the names matchName accepts for the query's terms, found through the term trie. */
export function matchingNames(catalog: NameCatalog, queryTerms: readonly string[]): number[] {
  if (queryTerms.length === 0) return [];
  const { names, match } = candidateNames(catalog.trie, queryTerms, (term) => catalog.byTerm.get(term)!);
  return [...names].filter((i) => matchName(queryTerms, terms(catalog.names[i]!), match) !== null).sort((a, b) => a - b);
}
