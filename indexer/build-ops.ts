import { handoffOfferDocs, nativeOfferDocs, productDoc, sellerDoc, skuDoc } from '../src/search/documents/builders.js';
import { cardDoc, cardFolds, foldOffer } from '../src/search/documents/card-fold.js';
import { docId, type IndexDoc } from '../src/search/documents/model.js';
import type { Chunk, Facts } from './facts.js';

// 3. Documents: every op of a chunk is a pure function of its facts (facts.ts reads them), so
// what the indexer writes for a given state of PostgreSQL and the index is fixed by these
// functions alone (test/unit/indexer/build-ops.test.ts).

/** One bulk action: the document as PostgreSQL says it is now, or its removal. */
export type DocOp = { id: string; doc: IndexDoc } | { id: string; doc: null };

/** Documents per bulk request. */
export const CHUNK = 2000;

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A chunk's ops as bulk requests: first the cards of the products its offers belong to (were and
 * are), then the chunk's own documents. Cards go first: if the process dies between the two
 * writes, the replay still finds the old product ids in the index (the offers were not written
 * yet) and recomputes those cards again.
 */
export function chunkOps(chunk: Chunk, f: Facts): DocOp[][] {
  const own = ownOps(chunk, f);
  if (chunk.kind !== 'native' && chunk.kind !== 'handoff') return [own];
  return [...chunks(cardOps(f), CHUNK), own];
}

/** The chunk's own documents, one op per key: the document, or its removal when PostgreSQL has none. */
export function ownOps(chunk: Chunk, f: Facts): DocOp[] {
  switch (chunk.kind) {
    case 'native': {
      const ops: DocOp[] = nativeOfferDocs(f.rows, f.sellers, f.products, f.poBox);
      return withRemovals(
        ops,
        chunk.pairs.map((p) => docId.native(p.sellerId, p.skuId)),
      );
    }
    case 'handoff':
      return withRemovals(handoffOfferDocs(f.variants, f.skus, f.stores, f.products), chunk.variantIds.map(docId.handoff));
    case 'product':
      return chunk.productIds.map((id) => {
        const p = f.products.get(id);
        return { id: docId.product(id), doc: p ? productDoc(p) : null };
      });
    case 'sku':
      return chunk.skuIds.map((id) => {
        const s = f.skus.get(id);
        return { id: docId.sku(id), doc: s ? skuDoc(s, f.products.get(s.productId)) : null };
      });
    case 'seller':
      return chunk.sellerIds.map((id) => {
        const s = f.sellers.get(id);
        return { id: docId.seller(id), doc: s ? sellerDoc(s, f.counts.get(id)) : null };
      });
  }
}

/** `ops`, then a removal for every id among `ids` they do not write. */
function withRemovals(ops: DocOp[], ids: readonly string[]): DocOp[] {
  const found = new Set(ops.map((op) => op.id));
  for (const id of ids) if (!found.has(id)) ops.push({ id, doc: null });
  return ops;
}

/**
 * The card of each product in `f.cards`, from all of its offers; a product without a shown offer
 * has none (its card is removed).
 */
export function cardOps(f: Facts): DocOp[] {
  const folds = cardFolds();
  for (const o of nativeOfferDocs(f.cards.rows, f.sellers, f.products, f.poBox)) foldOffer(folds, o.doc);
  for (const o of handoffOfferDocs(f.cards.variants, f.skus, f.stores, f.products)) foldOffer(folds, o.doc);
  return f.cards.productIds.map((id) => {
    const fold = folds.products.get(id);
    return { id: docId.card(id), doc: fold ? cardDoc(fold) : null };
  });
}
