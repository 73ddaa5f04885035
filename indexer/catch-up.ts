import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import { lastPosition, readFeed, saveCheckpoint, type Position } from './change-feed.js';
import { fanOut } from './fan-out.js';
import { opsForTargets } from './build-ops.js';
import { writeOps } from './bulk.js';

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
): Promise<{ position: Position; changes: number; docs: number }> {
  const rows = await readFeed(pool, position, FEED_BATCH);
  if (rows.length === 0) return { position, changes: 0, docs: 0 };
  const targets = await fanOut(pool, rows);
  let docs = 0;
  for await (const ops of opsForTargets(pool, targets)) {
    await writeOps(es, target, ops);
    docs += ops.length;
  }
  const next = lastPosition(rows, position);
  await saveCheckpoint(pool, consumer, next);
  return { position: next, changes: rows.length, docs };
}
