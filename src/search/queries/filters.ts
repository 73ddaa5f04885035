import type { FacetName, SearchQuery } from '../../contract/buyer.js';
import { FACET_PARAMS } from '../../contract/facets.js';
import { terms } from '../text.js';

// Search filters as Elasticsearch clauses. Facets are disjunctive, so each clause is kept under the
// facet it belongs to: a facet's counts apply every clause but its own.

export type Clause = Record<string, unknown>;

/** Facets of the product itself (every offer of a product shares them). */
export const PRODUCT_FACETS = ['category', 'set', 'rarity', 'collectorNumber'] as const;
export type ProductFacet = (typeof PRODUCT_FACETS)[number];

/** A card's field per facet: the seller facet's values are sellerCode + U+0000 + storeName. */
export const FACET_FIELD: Record<FacetName, string> = {
  category: 'category',
  set: 'set',
  rarity: 'rarity',
  condition: 'condition',
  language: 'language',
  finish: 'finish',
  collectorNumber: 'collectorNumber',
  seller: 'sellerFacet',
};

export const FACET_SIZE = 100;

export interface SearchClauses {
  /** Filters that are not facets (keyword terms). */
  always: Clause[];
  byFacet: Partial<Record<ProductFacet, Clause>>;
}

/** A filter-context conjunction (no scoring). */
export const bool = (filter: Clause[]): Clause => ({ bool: { filter } });

export const shownOffers: Clause[] = [{ term: { docType: 'offer' } }, { term: { shown: true } }];

export const anyOf = (field: string, values: readonly string[]): Clause =>
  values.length === 1 ? { term: { [field]: values[0] } } : { terms: { [field]: [...values] } };

/** The keyword and the product-level selections (offer-level ones: offer-search.ts). */
export function searchClauses(q: SearchQuery): SearchClauses {
  // Every folded term must be a term of the folded name; a keyword with no letters or digits
  // constrains nothing.
  const always: Clause[] = terms(q.keyword ?? '').map((t) => ({ term: { nameTerms: t } }));
  const byFacet: Partial<Record<ProductFacet, Clause>> = {};
  for (const f of PRODUCT_FACETS) {
    const v = q[FACET_PARAMS[f].param];
    if (v !== undefined) byFacet[f] = anyOf(FACET_FIELD[f], typeof v === 'string' ? [v] : v);
  }
  return { always, byFacet };
}

/** Every product-level facet clause except `except`'s own. */
export function facetClausesExcept(c: SearchClauses, except: FacetName | null): Clause[] {
  return PRODUCT_FACETS.filter((f) => f !== except && c.byFacet[f] !== undefined).map((f) => c.byFacet[f]!);
}
