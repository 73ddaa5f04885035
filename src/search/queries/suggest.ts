import type { SearchQuery, SuggestQuery, Suggestions } from '../../contract/buyer.js';
import { rankNames, correctionOf, compareCandidates, type Candidate } from '../suggest/match.js';
import { queryFuzziness } from '../suggest/typos.js';
import { MIN_GRAM } from '../documents/name-grams.js';
import { terms } from '../text.js';
import { bool, facetClausesExcept, searchClauses, type Clause } from './filters.js';
import { offerFilter, offerSelections } from './offer-search.js';

// GET /search/suggest over the product cards (docs/search-design.md, "Suggestions"): the cards are
// the products /search can list, so a name is suggested only while something carries it, in the
// same scope, with no document of its own to keep in step. Two requests:
//   1. candidates: the cards in scope whose name terms match the query's within the typo budgets
//      (fuzzy on `nameTerms`; the last term fuzzy on `nameGrams`, each name term's prefixes),
//      their distinct display names (`nameKey`) with each name's own card count, and whether
//      /search?keyword=<q> lists anything (for the correction);
//   2. counts: for the best candidates, the products /search?keyword=<name> lists in the scope,
//      from the same clauses /search builds (filters.ts, offer-search.ts): a `filters`
//      aggregation, one filter per name.

/** Distinct names the candidate request returns (the most products first). */
export const CANDIDATE_NAMES = 100;
/** Candidates whose /search totals are counted, of which the best `limit` are answered. */
export const COUNTED_NAMES = 20;

/** The /search query of a keyword in the suggestion's scope. */
export function scopedSearch(q: Pick<SuggestQuery, 'category' | 'sellerCode'>, keyword: string): SearchQuery {
  return { keyword, category: q.category, sellerCode: q.sellerCode, checkoutMode: 'any', sort: 'name', limit: 1 };
}

/** /search's own clauses for the scope (category, sellerCode), on cards. */
export function scopeClauses(q: Pick<SuggestQuery, 'category' | 'sellerCode'>): Clause[] {
  const sq = scopedSearch(q, '');
  const offers = offerFilter(offerSelections(sq));
  return [{ term: { docType: 'card' } }, ...facetClausesExcept(searchClauses(sq), null), ...(offers === null ? [] : [offers])];
}

const fuzzy = (field: string, value: string, fuzziness: number): Clause => ({
  fuzzy: { [field]: { value, fuzziness, transpositions: true, prefix_length: 0, max_expansions: 50 } },
});

/** A query term but the last: a whole name term within budget (the exact budgets apply in code: matchName). */
export function wordClause(t: string): Clause {
  const fuzziness = queryFuzziness(Array.from(t).length);
  return fuzziness === 0 ? { term: { nameTerms: t } } : fuzzy('nameTerms', t, fuzziness);
}

/** The last query term: within budget of a prefix of a name term (`nameGrams` holds the prefixes from MIN_GRAM on). */
export function prefixClause(t: string): Clause {
  const length = Array.from(t).length;
  const fuzziness = queryFuzziness(length);
  return fuzziness === 0 || length < MIN_GRAM ? { prefix: { nameTerms: t } } : fuzzy('nameGrams', t, fuzziness);
}

/**
 * The names aggregation: the most cards first, then by name. `map` collects the matching cards'
 * names as they are: the default (global ordinals) first builds `nameKey`'s ordinals across the
 * whole index again after every refresh (a refresh a second while writes flow), and the cards a
 * query matches are a small part of the index.
 */
const namesAgg = { terms: { field: 'nameKey', size: CANDIDATE_NAMES, execution_hint: 'map', order: [{ _count: 'desc' }, { _key: 'asc' }] } };

/**
 * The candidate request (size 0): null when the query has no term (letters or digits). When a
 * clause is fuzzy, the names matching exactly (every term a name term, the last a prefix of one)
 * are aggregated apart as well: at 23,000 names, the names a fuzzy clause reaches (most of them
 * beyond the exact budgets) crowd a rarely stocked exact match out of the 100 most stocked.
 */
export function suggestCandidatesBody(q: SuggestQuery): Record<string, unknown> | null {
  const qTerms = terms(q.q);
  if (qTerms.length === 0) return null;
  const last = qTerms[qTerms.length - 1]!;
  const matching = [...qTerms.slice(0, -1).map(wordClause), prefixClause(last)];
  const exact: Clause[] = [...qTerms.slice(0, -1).map((t) => ({ term: { nameTerms: t } })), { prefix: { nameTerms: last } }];
  const fuzzy = JSON.stringify(matching) !== JSON.stringify(exact);
  return {
    size: 0,
    track_total_hits: false,
    query: bool([...scopeClauses(q), ...matching]),
    aggs: {
      names: namesAgg,
      ...(fuzzy ? { exact: { filter: bool(exact), aggs: { names: namesAgg } } } : {}),
      // /search?keyword=<q>'s own keyword clauses: its products are among these cards.
      listed: { filter: bool(searchClauses(scopedSearch(q, q.q)).always) },
    },
  };
}

/**
 * The count request (size 0): one filter per name, /search's keyword clauses for that name. The
 * query keeps only the cards that carry one of the names, so the filters run over those and not
 * over every card in scope.
 */
export function suggestCountsBody(q: SuggestQuery, names: readonly string[]): Record<string, unknown> {
  const perName = names.map((n) => bool(searchClauses(scopedSearch(q, n)).always));
  return {
    size: 0,
    track_total_hits: false,
    query: bool([...scopeClauses(q), { bool: { should: perName, minimum_should_match: 1 } }]),
    aggs: { counts: { filters: { filters: perName } } },
  };
}

type NameBuckets = { buckets: { key: string; doc_count: number }[] };
interface CandidateResponse {
  aggregations?: { names: NameBuckets; exact?: { names: NameBuckets }; listed: { doc_count: number } };
}

/** The candidates ranked with their own card counts, the ones to count, and whether q lists anything. */
export function candidatesOf(q: SuggestQuery, res: CandidateResponse): { ranked: Candidate[]; toCount: Candidate[]; listed: number } {
  const aggs = res.aggregations!;
  const own = new Map<string, number>();
  for (const b of [...aggs.names.buckets, ...(aggs.exact?.names.buckets ?? [])]) own.set(b.key, Math.max(own.get(b.key) ?? 0, b.doc_count));
  const ranked = rankNames(terms(q.q), own);
  return { ranked, toCount: ranked.slice(0, COUNTED_NAMES), listed: aggs.listed.doc_count };
}

interface CountResponse {
  aggregations?: { counts: { buckets: { doc_count: number }[] } };
}

/** The count request's /search totals, in the order of the names asked. */
export const countsOf = (res: CountResponse): number[] => (res.aggregations?.counts.buckets ?? []).map((b) => b.doc_count);

/** The counted candidates with their /search totals (`counts[i]` of `toCount[i]`), reranked, and the correction. */
export function suggestionsOf(q: SuggestQuery, ranked: Candidate[], toCount: Candidate[], listed: number, counts: readonly number[]): Suggestions {
  const counted = toCount.map((c, i) => ({ ...c, productCount: counts[i]! })).sort(compareCandidates);
  return {
    completions: counted.slice(0, q.limit).map((c) => ({ text: c.name, productCount: c.productCount })),
    correction: listed > 0 ? null : correctionOf(ranked),
  };
}
