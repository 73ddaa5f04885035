import { FACETS, type FacetName, type SearchQuery } from '../../contract/buyer.js';
import { terms } from '../text.js';

// Search filters as Elasticsearch clauses over offer documents. Facets are disjunctive, so each
// clause is kept under the facet it belongs to: a facet's counts apply every clause but its own.

export type Clause = Record<string, unknown>;

export interface SearchClauses {
  /** Offer documents a buyer may see; applied to everything. */
  base: Clause[];
  /** Filters that are not facets (keyword, checkoutMode). */
  always: Clause[];
  byFacet: Partial<Record<FacetName, Clause>>;
}

/** A filter-context conjunction (no scoring). */
export const bool = (filter: Clause[]): Clause => ({ bool: { filter } });

export const shownOffers: Clause[] = [{ term: { docType: 'offer' } }, { term: { shown: true } }];

const anyOf = (field: string, values: string[]): Clause => (values.length === 1 ? { term: { [field]: values[0] } } : { terms: { [field]: values } });

export function searchClauses(q: SearchQuery): SearchClauses {
  const always: Clause[] = [];
  // Every folded term must be a term of the folded name; a keyword with no letters or digits
  // constrains nothing.
  for (const t of terms(q.keyword ?? '')) always.push({ term: { nameTerms: t } });
  if (q.checkoutMode !== 'any') always.push({ term: { checkoutMode: q.checkoutMode } });

  const byFacet: Partial<Record<FacetName, Clause>> = {};
  if (q.category !== undefined) byFacet.category = anyOf('category', [q.category]);
  if (q.set !== undefined) byFacet.set = anyOf('set', [q.set]);
  if (q.rarity !== undefined) byFacet.rarity = anyOf('rarity', [q.rarity]);
  if (q.collectorNumber) byFacet.collectorNumber = anyOf('collectorNumber', q.collectorNumber);
  if (q.condition) byFacet.condition = anyOf('condition', q.condition);
  if (q.language) byFacet.language = anyOf('language', q.language);
  if (q.finish) byFacet.finish = anyOf('finish', q.finish);
  if (q.sellerCode !== undefined) byFacet.seller = anyOf('sellerCode', [q.sellerCode]);
  return { base: shownOffers, always, byFacet };
}

/** Every facet clause except `except`'s own. */
export function facetClausesExcept(c: SearchClauses, except: FacetName | null): Clause[] {
  return FACETS.filter((f) => f !== except && c.byFacet[f] !== undefined).map((f) => c.byFacet[f]!);
}
