import type { Pool, PoolClient } from '../src/db/pool.js';
import { pairsPage, type Pair } from '../src/db/offer-source.js';
import { docId } from '../src/search/documents/model.js';
import { CHUNK, chunks } from './build-ops.js';
import type { Chunk } from './facts.js';

/** The set of documents one batch must recompute; a Set/Map so repeated changes coalesce. */
export interface Targets {
  pairs: Map<string, Pair>;
  /** Offers (document ids) of `pairs` and `variants` whose every change was offer-only (a repricing): their cards cannot have changed. */
  offerOnly: Set<string>;
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
  return {
    pairs: new Map(),
    offerOnly: new Set(),
    variants: new Set(),
    products: new Set(),
    skus: new Set(),
    sellers: new Set(),
    sellerDocs: new Set(),
    allNative: false,
  };
}

const pairKey = (p: Pair) => `${p.sellerId}:${p.skuId}`;

/** Records whether an offer's changes so far in the batch were all offer-only; `first`: its first change in the batch. */
function markOfferOnly(t: Targets, id: string, first: boolean, offerOnly: boolean): void {
  if (!offerOnly) t.offerOnly.delete(id);
  else if (first) t.offerOnly.add(id);
}

/** A pair to recompute; `offerOnly` when this change cannot have changed its cards. One change that can makes it count for its cards. */
export function addPair(t: Targets, p: Pair, offerOnly = false): void {
  const key = pairKey(p);
  markOfferOnly(t, docId.native(p.sellerId, p.skuId), !t.pairs.has(key), offerOnly);
  t.pairs.set(key, p);
}

/** A handoff variant to recompute, as addPair. */
export function addVariant(t: Targets, variantId: number, offerOnly = false): void {
  markOfferOnly(t, docId.handoff(variantId), !t.variants.has(variantId), offerOnly);
  t.variants.add(variantId);
}

/** The chunk's offers whose cards come along: all (undefined) unless some of them changed only their offers. */
function cardScopeOf(t: Targets, ids: readonly string[]): Set<string> | undefined {
  if (!ids.some((id) => t.offerOnly.has(id))) return undefined;
  return new Set(ids.filter((id) => !t.offerOnly.has(id)));
}

/**
 * The targets in chunks of at most `size` keys of one kind. The platform switch pages through every
 * listing; the switch itself changes no card, so those pages bring cards only for the pairs that
 * also changed (taken out of `t.pairs` as their page passes). Offer-only pairs bring no cards:
 * their offers are rewritten without reading the index (facts.ts).
 */
export async function* targetChunks(db: Pool | PoolClient, t: Targets, size = CHUNK): AsyncGenerator<Chunk> {
  if (t.allNative) {
    let after: Pair | null = null;
    for (;;) {
      const page = await pairsPage(db, after, size);
      if (page.length === 0) break;
      const changed = new Set<string>();
      for (const p of page) {
        const id = docId.native(p.sellerId, p.skuId);
        if (t.pairs.delete(pairKey(p)) && !t.offerOnly.has(id)) changed.add(id);
      }
      yield { kind: 'native', pairs: page, cardScope: changed };
      after = page[page.length - 1]!;
    }
  }
  // By sku: the skus of one product are neighbours, so its offers share a chunk and its card is
  // written once per batch rather than once per chunk that has one of them.
  const pairs = [...t.pairs.values()].sort((a, b) => a.skuId - b.skuId || a.sellerId - b.sellerId);
  for (const chunk of chunks(pairs, size)) {
    const cardScope = cardScopeOf(
      t,
      chunk.map((p) => docId.native(p.sellerId, p.skuId)),
    );
    yield cardScope ? { kind: 'native', pairs: chunk, cardScope } : { kind: 'native', pairs: chunk };
  }
  for (const variantIds of chunks([...t.variants], size)) {
    const cardScope = cardScopeOf(t, variantIds.map(docId.handoff));
    yield cardScope ? { kind: 'handoff', variantIds, cardScope } : { kind: 'handoff', variantIds };
  }
  for (const productIds of chunks([...t.products], size)) yield { kind: 'product', productIds };
  for (const skuIds of chunks([...t.skus], size)) yield { kind: 'sku', skuIds };
  for (const sellerIds of chunks([...new Set([...t.sellers, ...t.sellerDocs])], size)) yield { kind: 'seller', sellerIds };
}
