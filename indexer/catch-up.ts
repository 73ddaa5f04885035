import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import { readFeed } from '../src/db/change-feed.js';
import { lastPosition, saveCheckpoint, type Position } from '../src/db/feed-guard.js';
import { poBoxSuspended } from '../src/db/offer-source.js';
import { fanOut } from './fan-out.js';
import { targetChunks, type Targets } from './targets.js';
import { loadFacts } from './facts.js';
import { indexViews } from './index-views.js';
import { chunkOps } from './build-ops.js';
import { docId } from '../src/search/documents/model.js';
import { serializeOps } from './bulk.js';
import { orderedWriter, type OrderedWriter } from './ordered-writer.js';
import { stepTimes, timed, timedSync, type StepTimes } from './step-times.js';

/** Feed rows per batch when little waits. */
export const FEED_BATCH = 5000;
/** Feed rows per batch at most, while a backlog waits (fewer per-batch round trips and checkpoints). */
export const MAX_FEED_BATCH = 20_000;

export interface CatchUpOptions {
  /** Feed rows to take (FEED_BATCH by default). */
  limit?: number;
  /** Called after each unit is handed to the writer: another lane's turn, its writes in the same order. */
  between?: (writer: OrderedWriter) => Promise<void>;
  /** Where the batch's time goes, summed per step. */
  times?: StepTimes;
  /** Documents per unit (build-ops.ts CHUNK by default): smaller units give `between` more turns. */
  chunk?: () => number;
}

export interface Batch {
  position: Position;
  changes: number;
  docs: number;
  /** When each change was committed (its transaction's time), for the commit-to-indexed histogram. */
  committedAt: number[];
  /** The batch took as many rows as it asked for: more are likely waiting. */
  full: boolean;
  times: StepTimes;
  /** Documents refused and quarantined, and quarantined documents written again (quarantine.ts). */
  quarantined: number;
  released: number;
}

/**
 * One batch: read committed changes after `position`, recompute every document they touch from
 * PostgreSQL's current state, write them, then (and only then) advance the checkpoint. A crash
 * anywhere before the checkpoint replays the batch, which is harmless: documents are recomputed,
 * not patched. The next chunk's facts are read while the last chunk's bulk request is in flight;
 * each document's writes go out in read order (ordered-writer.ts).
 */
export async function catchUp(pool: Pool, es: Client, target: string, position: Position, consumer: string, opts: CatchUpOptions = {}): Promise<Batch> {
  const times = opts.times ?? stepTimes();
  const limit = opts.limit ?? FEED_BATCH;
  // 1. Changes: the feed rows committed after `position`.
  const rows = await timed(times, 'feed', () => readFeed(pool, position, limit));
  if (rows.length === 0) return { position, changes: 0, docs: 0, committedAt: [], full: false, times, quarantined: 0, released: 0 };
  const writer = orderedWriter(pool, es, target, times);
  try {
    // 2. Targets: every document those changes touch, each once however often it changed.
    const targets = await timed(times, 'fanOut', () => fanOut(pool, rows));
    // 3. Per chunk of targets: its facts, then its documents, one unit of bulk requests each.
    const between = opts.between && paced(opts.between);
    const docs = await writeTargets(pool, es, target, targets, writer, times, between, opts.chunk);
    await turnsWhile(writer.flush(), writer, between);
    // And the units its last turn handed over.
    await writer.flush();
    // 4. Checkpoint: past the batch, once every document is written or quarantined.
    const next = lastPosition(rows, position);
    await timed(times, 'checkpoint', () => saveCheckpoint(pool, consumer, next));
    return {
      position: next,
      changes: rows.length,
      docs,
      committedAt: rows.map((r) => r.createdAt.getTime()),
      full: rows.length === limit,
      times,
      ...writer.counts(),
    };
  } finally {
    // A failed batch is retried from its start: nothing of this one may still be in flight then.
    await writer.settled();
  }
}

/** Reads, builds and hands to `writer` the documents of `targets`, one chunk at a time; how many. */
export async function writeTargets(
  pool: Pool,
  es: Client,
  target: string,
  targets: Targets,
  writer: OrderedWriter,
  times: StepTimes,
  between?: (writer: OrderedWriter) => Promise<void>,
  chunk?: () => number,
): Promise<number> {
  const poBox = await timed(times, 'facts', () => poBoxSuspended(pool));
  // A card this batch has handed over may not have landed: the index cannot say whether it is right.
  const indexed = indexViews(es, target, (productId) => writer.named(docId.card(productId)));
  const chunks = targetChunks(pool, targets, chunk?.());
  let docs = 0;
  for (;;) {
    const next = await timed(times, 'facts', () => chunks.next());
    if (next.done) break;
    const chunk = next.value;
    let facts = await timed(times, 'facts', () => loadFacts(pool, chunk, poBox, { indexed }));
    // The cards left as the index has them must still be unwritten by this batch when the unit is
    // handed over (nothing else hands units over meanwhile; checked, not assumed).
    while (facts.cards.kept.some(indexed.recompute)) facts = await timed(times, 'facts', () => loadFacts(pool, chunk, poBox, { indexed }));
    const ops = timedSync(times, 'build', () => chunkOps(chunk, facts));
    const bodies = timedSync(times, 'serialise', () => ops.map((o) => serializeOps(target, o)));
    const ids = ops.flatMap((o) => o.map((op) => op.id));
    docs += ids.length;
    // chunkOps: the cards' requests first, the chunk's own documents last.
    await turnsWhile(writer.write(bodies, ids, bodies.length - 1), writer, between);
  }
  return docs;
}

/**
 * `between`, skipped when its last turn began less than TURN_EVERY_MS ago: a unit is handed over
 * every few tens of milliseconds in a burst, and a turn after each (a feed read even with nothing
 * to write) held the burst's reads back for a quarter of its time, where a turn every 100 ms keeps
 * the small changes as fresh (bench/results/burst.md).
 */
export function paced(
  between: (writer: OrderedWriter) => Promise<void>,
  now: () => number = () => performance.now(),
): (writer: OrderedWriter) => Promise<void> {
  let last = -Infinity;
  return async (writer) => {
    if (now() - last < TURN_EVERY_MS) return;
    last = now();
    await between(writer);
  };
}

/** Pause between two turns of `between` while the same wait lasts. */
export const TURN_EVERY_MS = 100;

/**
 * Awaits `wait` (a unit waiting for a slot, or the batch's last units in flight), giving
 * `between` a turn at once and then every TURN_EVERY_MS until it is over: another lane's changes
 * need not wait for this batch's requests. Its units are handed over after the one awaited, so
 * per document they land after it.
 */
async function turnsWhile(wait: Promise<void>, writer: OrderedWriter, between?: (writer: OrderedWriter) => Promise<void>): Promise<void> {
  if (!between) return wait;
  let over = false;
  const waited = wait.finally(() => (over = true));
  waited.catch(() => undefined);
  do {
    await between(writer);
    if (!over) await Promise.race([waited.catch(() => undefined), new Promise((r) => setTimeout(r, TURN_EVERY_MS))]);
  } while (!over);
  return waited;
}
