import { FACETS, searchQuerySchema, type Facets, type SearchQuery } from '../../contract/buyer.js';
import { FACET_PARAMS } from '../../contract/facets.js';
import { requestKey } from './cache.js';

// The warm set (docs/search-design.md "Degraded Mode: the warm set"): the searches storefronts
// ask most, answered ahead of an outage so Degraded Mode has them in the last-good cache. Derived
// from the landing grid's own facets, so it follows the catalogue without configuration.

/** A warm request: the parsed, defaulted search arguments a route hands the buyer service, and its cache key. */
export interface WarmRequest {
  readonly query: SearchQuery;
  readonly key: string;
}

/** The key the route's `service.search(q, after)` gets for a first page (no cursor: after = null). */
export function searchKey(q: SearchQuery): string {
  return requestKey('search', [q, null]);
}

/**
 * Parses query-string parameters exactly as GET /search does, so the warm entry's key is the key
 * of the storefront's request; null for a value the edge would refuse (it can never be asked).
 */
function warmRequest(params: Record<string, string>): WarmRequest | null {
  const parsed = searchQuerySchema.safeParse(params);
  return parsed.success ? { query: parsed.data, key: searchKey(parsed.data) } : null;
}

/** The landing grid in both sorts: asked before anything else, its facets make the rest. */
export function landingRequests(): WarmRequest[] {
  return [warmRequest({})!, warmRequest({ sort: 'name_desc' })!];
}

/**
 * The single-filter first pages: the top `perFacet` values of each of the landing grid's facets
 * (the facets list values by product count, most first), the seller facet as `sellerCode`, and
 * both checkout modes. Default sort and page size, as a storefront links them. Duplicates (the
 * same key twice) are dropped; the order is the facets' order, so a pass cut short has warmed the
 * busiest values first.
 */
export function singleFilterRequests(landing: Facets, perFacet: number): WarmRequest[] {
  const n = Math.max(0, Math.floor(perFacet));
  const params: Record<string, string>[] = [];
  for (const facet of FACETS) {
    const { param } = FACET_PARAMS[facet];
    if (facet === 'seller') for (const s of landing.seller.slice(0, n)) params.push({ [param]: s.sellerCode });
    else for (const v of landing[facet].slice(0, n)) params.push({ [param]: v.value });
  }
  params.push({ checkoutMode: 'express' }, { checkoutMode: 'manual' });

  const seen = new Set(landingRequests().map((r) => r.key));
  const out: WarmRequest[] = [];
  for (const p of params) {
    const r = warmRequest(p);
    if (r === null || seen.has(r.key)) continue;
    seen.add(r.key);
    out.push(r);
  }
  return out;
}
