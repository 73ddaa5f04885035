import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import { readFeedAside } from '../src/db/change-feed.js';
import type { Position } from '../src/db/feed-guard.js';
import { fanOut } from './fan-out.js';
import { writeTargets } from './catch-up.js';
import type { OrderedWriter } from './ordered-writer.js';
import { stepTimes, timed, type StepTimes } from './step-times.js';

// Small changes first (docs/indexing.md "Lanes"). The checkpoint follows the feed in commit order
// and passes a burst only as fast as its documents can be written. Meanwhile this lane reads ahead
// of it, skipping the rows of the sellers behind a burst, and writes the documents of everything
// else between the main batch's units, through the same ordered writer: every document is
// recomputed from PostgreSQL as it is when read, and units are written in read order, so a write
// ahead is never older than one behind it. The lane keeps no checkpoint: the main batch writes
// its rows again when it reaches them, so a restart (or a failure) loses nothing; the lane merely
// starts again at the checkpoint.

/** Feed rows one pass of the small lane takes, and looks at, at most. */
export const SMALL_LANE_TAKE = 1000;
export const SMALL_LANE_SCAN = 20_000;

export interface SmallLane {
  /** The sellers behind a burst (from the last backlog read): their changes stay behind the checkpoint. */
  bursts: number[];
  /** Where the lane has read up to; null: at the checkpoint (memory only). */
  ahead: Position | null;
  /** Feed rows the lane has written ahead of the checkpoint. */
  changes: number;
}

export function smallLane(): SmallLane {
  return { bursts: [], ahead: null, changes: 0 };
}

/** `a` if it is at or after `b`, else `b` (feed positions: xid8, then id). */
export function later(a: Position | null, b: Position): Position {
  if (!a) return b;
  const ax = BigInt(a.xid);
  const bx = BigInt(b.xid);
  return ax > bx || (ax === bx && a.id >= b.id) ? a : b;
}

/**
 * One pass of the lane after `checkpoint`, its writes handed to `writer` (the main batch's): the
 * changes of sellers without a burst, committed after where the lane last read. Nothing while no
 * seller has a burst: then the main batch is as prompt.
 */
export async function smallLanePass(
  pool: Pool,
  es: Client,
  target: string,
  lane: SmallLane,
  checkpoint: Position,
  writer: OrderedWriter,
  times: StepTimes,
): Promise<void> {
  if (lane.bursts.length === 0) return;
  await timed(times, 'smallLane', async () => {
    const { rows, scanned } = await readFeedAside(pool, later(lane.ahead, checkpoint), lane.bursts, SMALL_LANE_TAKE, SMALL_LANE_SCAN);
    lane.ahead = scanned;
    if (rows.length === 0) return;
    const own = stepTimes();
    // Its units need not wait for a free slot behind the burst's requests, and the lane does not
    // wait for them to be sent: a unit naming a card of a burst unit still in flight waits for it
    // (the writer orders units from the moment they are handed over) while the main batch reads
    // on. A failure fails the batch (its flush), which starts the lane again at the checkpoint.
    const ahead: OrderedWriter = {
      ...writer,
      write: (bodies, ids, cards) => {
        writer.write(bodies, ids, cards, true).catch(() => undefined);
        return Promise.resolve();
      },
    };
    await writeTargets(pool, es, target, await fanOut(pool, rows), ahead, own);
    lane.changes += rows.length;
  });
}
