import type { Client } from '@elastic/elasticsearch';
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import { SNAPSHOT, withTransaction, type Pool } from '../../src/db/pool.js';
import { idsPage, pairsPage, poBoxSuspended, type Pair } from '../../src/db/offer-source.js';
import { handoffOps, nativeOps, productOps, sellerOps, skuOps } from '../../indexer/build-ops.js';
import { cardDoc, cardFolds, foldOffer } from '../../src/search/documents/card-fold.js';
import { docId, type OfferDoc } from '../../src/search/documents/model.js';

// "Is the index equal to the truth?": every document computed afresh from PostgreSQL, against
// every document in the index. Used by the fault and reindex tests after a crash or outage.

export async function expectedDocs(pool: Pool): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  const folds = cardFolds();
  await withTransaction(
    pool,
    async (db) => {
      const poBox = await poBoxSuspended(db);
      let after: Pair | null = null;
      for (;;) {
        const page = await pairsPage(db, after, 2000);
        if (page.length === 0) break;
        for (const op of await nativeOps(db, page, poBox)) if (op.doc) out.set(op.id, op.doc);
        after = page[page.length - 1]!;
      }
      for (const [table, build] of [
        ['handoff_variants', handoffOps],
        ['products', productOps],
        ['skus', skuOps],
        ['sellers', sellerOps],
      ] as const) {
        let last = 0;
        for (;;) {
          const ids = await idsPage(db, table, last, 2000);
          if (ids.length === 0) break;
          for (const op of await build(db, ids)) if (op.doc) out.set(op.id, op.doc);
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
