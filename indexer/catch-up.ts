import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import { readFeed } from '../src/db/change-feed.js';
import { lastPosition, saveCheckpoint, type Position } from '../src/db/feed-guard.js';
import { poBoxSuspended } from '../src/db/offer-source.js';
import { fanOut } from './fan-out.js';
import { targetChunks } from './targets.js';
import { loadFacts, type IndexedProducts } from './facts.js';
import { chunkOps } from './build-ops.js';
import { writeOrQuarantine } from './quarantine.js';

export const FEED_BATCH = 5000;

/**
 * One batch: read committed changes after `position`, recompute every document they touch from
 * PostgreSQL's current state, write them, then (and only then) advance the checkpoint. A crash
 * anywhere before the checkpoint replays the batch, which is harmless: documents are recomputed,
 * not patched.
 */
export async function catchUp(
  pool: Pool,
  es: Client,
  target: string,
  position: Position,
  consumer: string,
): Promise<{ position: Position; changes: number; docs: number; committedAt: number[]; quarantined: number; released: number }> {
  // 1. Changes: the feed rows committed after `position`.
  const rows = await readFeed(pool, position, FEED_BATCH);
  if (rows.length === 0) return { position, changes: 0, docs: 0, committedAt: [], quarantined: 0, released: 0 };
  // 2. Targets: every document those changes touch.
  const targets = await fanOut(pool, rows);
  // 3. Per chunk of targets: its facts, then its documents, one bulk request each.
  const poBox = await poBoxSuspended(pool);
  const indexed = indexedProducts(es, target);
  let docs = 0;
  // Documents refused for a reason of their own are quarantined, not retried (quarantine.ts).
  let quarantined = 0;
  let released = 0;
  for await (const chunk of targetChunks(pool, targets)) {
    const facts = await loadFacts(pool, chunk, poBox, { indexed });
    for (const ops of chunkOps(chunk, facts)) {
      const q = await writeOrQuarantine(pool, es, target, ops);
      quarantined += q.quarantined;
      released += q.released;
      docs += ops.length;
    }
  }
  // 4. Checkpoint: past the batch, once every document is written.
  const next = lastPosition(rows, position);
  await saveCheckpoint(pool, consumer, next);
  // When each change was committed (its transaction's time), for the commit-to-indexed histogram.
  return { position: next, changes: rows.length, docs, committedAt: rows.map((r) => r.createdAt.getTime()), quarantined, released };
}

/** Reads the productId of offer documents as the index holds them now (a realtime get, not a search). */
export function indexedProducts(es: Client, index: string): IndexedProducts {
  return async (ids) => {
    if (ids.length === 0) return [];
    const res = await es.mget<{ productId: number }>({
      index,
      ids,
      _source_includes: ['productId'],
      filter_path: ['docs._source', 'docs.error'],
    });
    const out: number[] = [];
    for (const d of res.docs ?? []) {
      const doc = d as { _source?: { productId?: number }; error?: { type?: string; reason?: string } };
      // A failed get must fail the batch: skipping it could leave an old product's card stale.
      if (doc.error) throw new Error(`mget of indexed offers failed: ${doc.error.type} ${doc.error.reason}`);
      if (doc._source?.productId !== undefined) out.push(doc._source.productId);
    }
    return out;
  };
}
