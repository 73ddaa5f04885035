import type { Disclosures, FulfillmentObligation } from './buyer.js';

// Buyer-facing constants of DECISIONS.md, in one place for the index, the PostgreSQL fallback
// and the cart lookup.

export const MAGIC = 'Magic: The Gathering';

export function disclosuresFor(category: string | null): Disclosures {
  const magic = category === MAGIC;
  return {
    imageSource: 'catalog',
    conditionSource: 'seller_declared',
    authenticitySource: 'seller_attestation',
    serviceInspected: false,
    serviceGraded: false,
    serviceAuthenticated: false,
    gradingStandard: magic ? 'service-magic-v1' : 'seller-declared-no-specialist-promise',
    declaredGrade: null,
    buyerProtection: magic ? 'magic-grade-and-authenticity' : 'genuine-and-as-described',
  };
}

export const FULFILLMENT_OBLIGATION: FulfillmentObligation = {
  sku: 'exact',
  printing: 'exact',
  language: 'exact',
  finish: 'exact',
  condition: 'declared-or-better',
};

export const SEALED_CONDITION = 'Unopened';

/** Mean review score rounded half-up to 2 decimals in integer arithmetic; null without reviews, never 0. */
export function reviewScore(sum: number, count: number): { score: number | null; count: number } {
  return { score: count > 0 ? Math.round((sum * 100) / count) / 100 : null, count };
}
