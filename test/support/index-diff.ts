import type { Client } from '@elastic/elasticsearch';
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { SNAPSHOT, withTransaction, type Pool } from '../../src/db/pool.js';
import { idsPage, pairsPage, poBoxSuspended, type Pair } from '../../src/db/offer-source.js';
import { ownOps } from '../../indexer/build-ops.js';
import { loadFacts, type Chunk } from '../../indexer/facts.js';
import { cardDoc, cardFolds, foldOffer } from '../../src/search/documents/card-fold.js';
import { docId, type OfferDoc } from '../../src/search/documents/model.js';

// "Is the index equal to the truth?": every document computed afresh from PostgreSQL, against
// every document in the index. Used by the fault and reindex tests after a crash or outage.
// Offers, products, skus and sellers are computed as the live indexer's chunks are (by keys, not
// by the rebuild's pages), and cards folded from those offers here.

export async function expectedDocs(pool: Pool): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  const folds = cardFolds();
  await withTransaction(
    pool,
    async (db) => {
      const poBox = await poBoxSuspended(db);
      const add = async (chunk: Chunk) => {
        for (const op of ownOps(chunk, await loadFacts(db, chunk, poBox))) if (op.doc) out.set(op.id, op.doc);
      };
      let after: Pair | null = null;
      for (;;) {
        const pairs = await pairsPage(db, after, 2000);
        if (pairs.length === 0) break;
        await add({ kind: 'native', pairs });
        after = pairs[pairs.length - 1]!;
      }
      const tables: [Parameters<typeof idsPage>[1], (ids: number[]) => Chunk][] = [
        ['handoff_variants', (variantIds) => ({ kind: 'handoff', variantIds })],
        ['products', (productIds) => ({ kind: 'product', productIds })],
        ['skus', (skuIds) => ({ kind: 'sku', skuIds })],
        ['sellers', (sellerIds) => ({ kind: 'seller', sellerIds })],
      ];
      for (const [table, chunkOf] of tables) {
        let last = 0;
        for (;;) {
          const ids = await idsPage(db, table, last, 2000);
          if (ids.length === 0) break;
          await add(chunkOf(ids));
          last = ids[ids.length - 1]!;
        }
      }
      // Cards: every product with a shown offer, folded from the offers computed above.
      for (const doc of out.values()) if ((doc as { docType: string }).docType === 'offer') foldOffer(folds, doc as OfferDoc);
      for (const f of folds.products.values()) out.set(docId.card(f.fields.item.productId), cardDoc(f));
    },
    SNAPSHOT,
  );
  return out;
}

export async function indexedDocs(es: Client, index: string): Promise<Map<string, unknown>> {
  await es.indices.refresh({ index });
  const out = new Map<string, unknown>();
  // Sorting on _id is off by default in 8+/9, so page with a point in time and _shard_doc.
  const pit = await es.openPointInTime({ index, keep_alive: '1m' });
  try {
    let after: unknown[] | undefined;
    for (;;) {
      const res = await es.search({
        size: 5000,
        pit: { id: pit.id, keep_alive: '1m' },
        sort: ['_shard_doc'],
        query: { match_all: {} },
        ...(after ? { search_after: after as never } : {}),
      });
      for (const h of res.hits.hits) out.set(h._id!, h._source);
      if (res.hits.hits.length < 5000) return out;
      after = res.hits.hits[res.hits.hits.length - 1]!.sort;
    }
  } finally {
    await es.closePointInTime({ id: pit.id }).catch(() => undefined);
  }
}

export interface IndexDiff {
  missing: string[];
  extra: string[];
  stale: string[];
  expected: number;
  /** The first stale document, expected and indexed, for the failure message. */
  samples: { id: string; want: unknown; have: unknown }[];
}

export async function diffIndex(pool: Pool, es: Client, index: string): Promise<IndexDiff> {
  const [want, have] = await Promise.all([expectedDocs(pool), indexedDocs(es, index)]);
  const missing = [...want.keys()].filter((id) => !have.has(id));
  const extra = [...have.keys()].filter((id) => !want.has(id));
  const stale = [...want.keys()].filter((id) => have.has(id) && !isDeepStrictEqual(JSON.parse(JSON.stringify(want.get(id))), have.get(id)));
  const samples = stale.slice(0, 1).map((id) => ({ id, want: want.get(id), have: have.get(id) }));
  return { missing, extra, stale, expected: want.size, samples };
}

/** Asserts the index equals a fresh computation from PostgreSQL, of at least `atLeast` documents. */
export async function expectIndexMatchesSource(pool: Pool, es: Client, index: string, atLeast: number): Promise<void> {
  const d = await diffIndex(pool, es, index);
  expect(d.expected).toBeGreaterThan(atLeast);
  expect({ missing: d.missing.slice(0, 5), extra: d.extra.slice(0, 5), stale: d.stale.slice(0, 5) }, JSON.stringify(d.samples)).toEqual({
    missing: [],
    extra: [],
    stale: [],
  });
}
