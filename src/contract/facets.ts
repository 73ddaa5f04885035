import type { FacetName, SearchQuery } from './buyer.js';

// Kept apart from buyer.ts, with type-only imports, so the storefront's bundle takes this table
// without zod.

/**
 * Each facet of a search answer (GET /search), the query parameter that filters by it, and whether
 * that parameter takes several values. The query builders, the warm set and the storefront read it.
 */
export const FACET_PARAMS = {
  category: { param: 'category', multi: false },
  set: { param: 'set', multi: false },
  rarity: { param: 'rarity', multi: false },
  condition: { param: 'condition', multi: true },
  language: { param: 'language', multi: true },
  finish: { param: 'finish', multi: true },
  collectorNumber: { param: 'collectorNumber', multi: true },
  seller: { param: 'sellerCode', multi: false },
} as const satisfies Record<FacetName, { param: keyof SearchQuery; multi: boolean }>;
