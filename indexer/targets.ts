import type { Pair } from '../src/db/offer-source.js';

/** The set of documents one batch must recompute; a Set/Map so repeated changes coalesce. */
export interface Targets {
  pairs: Map<string, Pair>;
  variants: Set<number>;
  products: Set<number>;
  skus: Set<number>;
  /** Sellers whose offers all change (name, readiness, PO-box setting): every offer and the seller document. */
  sellers: Set<number>;
  /** Sellers whose counters changed (an order, a review): the seller document only. */
  sellerDocs: Set<number>;
  /** The platform-wide PO-box switch changed: every native offer is recomputed. */
  allNative: boolean;
}

export function emptyTargets(): Targets {
  return { pairs: new Map(), variants: new Set(), products: new Set(), skus: new Set(), sellers: new Set(), sellerDocs: new Set(), allNative: false };
}

export function addPair(t: Targets, p: Pair): void {
  t.pairs.set(`${p.sellerId}:${p.skuId}`, p);
}
