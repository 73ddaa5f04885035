import type { SuggestQuery, Suggestions } from '../../contract/buyer.js';
import { fold, terms } from '../text.js';
import { COUNTED_NAMES, suggestionsOf } from '../queries/suggest.js';
import { rankNames } from './match.js';
import { cardTable } from './card-table.js';
import { candidateNames, termTrie, type TermTrie } from './term-trie.js';

// The product cards as far as suggestions need them -- name, category, the sellers showing an
// offer -- held in the API's memory (live-catalog.ts keeps it in step with the index), so a
// suggestion is answered without a request to the cluster: it never waits behind searches in
// Elasticsearch's search threads. The same rule as the index path (match.ts ranks, the scope is
// /search's: a card in the category, a card the seller shows an offer on), and the counts are
// /search's: the cards in scope having every term of the name. Pure.

/** What a card tells the catalog. */
export interface CatalogCard {
  productId: number;
  /** The product name (`nameKey`), null when the product has none. */
  name: string | null;
  category: string | null;
  /** The sellers with a shown offer on it (the card's `sellerCode`). */
  sellerCodes: readonly string[];
}

interface Name {
  text: string;
  terms: readonly string[];
  folded: string;
}

export interface CardCatalog {
  /** Adds a card or replaces the one of the same product. */
  put(card: CatalogCard): void;
  /** The product's card is gone (no shown offer left). */
  remove(productId: number): void;
  suggest(q: SuggestQuery): Suggestions;
  /** Cards held. */
  readonly size: number;
  /** Distinct names held (with a card or without one any more). */
  readonly names: number;
}

export function cardCatalog(cards: Iterable<CatalogCard> = []): CardCatalog {
  const table = cardTable();
  const names: Name[] = [];
  const nameIds = new Map<string, number>();
  /** Each distinct term with the names having it. */
  const byTerm = new Map<string, Set<number>>();
  let trie: TermTrie | null = null;
  // Categories and seller codes as numbers (the table holds numbers only).
  const categories = new Map<string, number>();
  const sellers = new Map<string, number>();
  const numberOf = (ids: Map<string, number>, v: string): number => {
    let id = ids.get(v);
    if (id === undefined) ids.set(v, (id = ids.size));
    return id;
  };

  const nameId = (text: string): number => {
    let id = nameIds.get(text);
    if (id !== undefined) return id;
    id = names.length;
    const ts = terms(text);
    names.push({ text, terms: ts, folded: fold(text) });
    nameIds.set(text, id);
    for (const t of new Set(ts)) {
      let having = byTerm.get(t);
      if (having === undefined) {
        byTerm.set(t, (having = new Set()));
        trie = null; // a new term: the trie is built again when next asked
      }
      having.add(id);
    }
    return id;
  };

  const put = (card: CatalogCard) => {
    const name = card.name === null || terms(card.name).length === 0 ? -1 : nameId(card.name);
    const category = card.category === null ? -1 : numberOf(categories, card.category);
    table.put(
      card.productId,
      name,
      category,
      card.sellerCodes.map((s) => numberOf(sellers, s)),
    );
  };
  for (const c of cards) put(c);

  const suggest = (q: SuggestQuery): Suggestions => {
    const qTerms = terms(q.q);
    if (qTerms.length === 0) return { completions: [], correction: null };
    // A scope value no card has: nothing is in scope (-2 matches no card's number).
    const category = q.category === undefined ? null : (categories.get(q.category) ?? -2);
    const seller = q.sellerCode === undefined ? null : (sellers.get(q.sellerCode) ?? -2);
    const inScope = (slot: number) => (category === null || table.category(slot) === category) && (seller === null || table.hasSeller(slot, seller));
    const cardsOf = (name: number) => {
      const slots = table.members(name);
      if (category === null && seller === null) return slots.length;
      let n = 0;
      for (const slot of slots) if (inScope(slot)) n++;
      return n;
    };
    /** The cards in scope /search?keyword=<words> lists: those whose name has every one of the terms. */
    const listed = (words: readonly string[]) => {
      const sets = [...new Set(words)].map((t) => byTerm.get(t));
      if (sets.some((s) => s === undefined)) return 0;
      const [smallest, ...rest] = (sets as Set<number>[]).sort((x, y) => x.size - y.size);
      let n = 0;
      for (const id of smallest!) if (rest.every((s) => s.has(id))) n += cardsOf(id);
      return n;
    };

    // 1. The names having, for each query term, a term within its budget (the last: through a prefix).
    trie ??= termTrie(byTerm.keys());
    const { names: candidates, match } = candidateNames(trie, qTerms, (term) => byTerm.get(term)!);
    // 2. Their cards in scope; a name with none is never suggested.
    const own = new Map<string, number>();
    for (const id of candidates) {
      const n = cardsOf(id);
      if (n > 0) own.set(names[id]!.text, n);
    }
    // 3. Ranked by the rule (match.ts), the best counted as /search would list them.
    const ranked = rankNames(qTerms, own, (text) => names[nameIds.get(text)!]!, match);
    const toCount = ranked.slice(0, COUNTED_NAMES);
    return suggestionsOf(
      q,
      ranked,
      toCount,
      listed(qTerms),
      toCount.map((c) => listed(names[nameIds.get(c.name)!]!.terms)),
    );
  };

  return {
    put,
    remove: (productId) => table.remove(productId),
    suggest,
    get size() {
      return table.size;
    },
    get names() {
      return names.length;
    },
  };
}
