import type { Pool, PoolClient } from './pool.js';

// Reading a commit-ordered feed (change_feed today; any table whose rows carry the xid8 of the
// transaction that wrote them) without skipping late commits.
//
// Feed ids are assigned at insert but transactions commit in any order, so "id > last" could pass
// over a row whose transaction commits later. Instead rows are read in (xid, id) order and only
// below a guard: the lowest xid that a transaction of THIS database could still commit with.
// Once the position passes (x, i), no row at or below it can still appear.
//
// The guard is not simply the snapshot's xmin: that is cluster-wide, so a long transaction in
// another database on the same server would stall the feed. Instead it is the lowest of
// - the xids of this database's transactions in progress (pg_locks x pg_stat_activity), and
// - the snapshot's xmax, taken before pg_locks is read: a transaction that gets its xid later
//   gets one at or above it (xmax is latestCompletedXid + 1, so running xids may lie above it).
// Rows are then read by a later statement, whose snapshot sees every transaction below the guard
// that has committed by then; those still in progress below the guard belong to other databases.

type Db = Pool | PoolClient;

export interface Position {
  xid: string; // xid8 as decimal text (64-bit)
  id: number;
}

export const START: Position = { xid: '0', id: 0 };

/** The lowest xid (as xid8 text) a transaction of this database could still commit feed rows with. */
export async function feedGuard(db: Db): Promise<string> {
  const { rows } = await db.query(
    `SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax,
            coalesce(array_agg(l.transactionid::text) FILTER (WHERE l.transactionid IS NOT NULL), '{}') AS xids
       FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'transactionid' AND l.mode = 'ExclusiveLock' AND l.granted
        AND a.datname = current_database() AND a.pid <> pg_backend_pid()`,
  );
  return lowestXid8(BigInt(rows[0].xmax), (rows[0].xids as string[]).map(BigInt)).toString();
}

/**
 * Widens 32-bit xids of running transactions to xid8 in the epoch nearest xmax (a running xid may
 * lie on either side of xmax, which is latestCompletedXid + 1) and takes the lowest with xmax.
 */
export function lowestXid8(xmax: bigint, xids32: bigint[]): bigint {
  const epochBase = (xmax >> 32n) << 32n;
  const half = 1n << 31n;
  let lowest = xmax;
  for (const x of xids32) {
    let full = epochBase + x;
    if (full > xmax + half) full -= 1n << 32n;
    else if (full < xmax - half) full += 1n << 32n;
    if (full < lowest) lowest = full;
  }
  return lowest;
}

/** The position of the last row read, or `fallback` when none was. */
export function lastPosition(rows: readonly Position[], fallback: Position): Position {
  const last = rows[rows.length - 1];
  return last ? { xid: last.xid, id: last.id } : fallback;
}

/** A position no change committed after this call can be at or below (for rebuild start points). */
export async function horizon(db: Db): Promise<Position> {
  return { xid: await feedGuard(db), id: 0 };
}

// Checkpoints: one position per consumer (feed_checkpoints).

export async function loadCheckpoint(db: Db, consumer: string): Promise<Position | null> {
  const { rows } = await db.query(`SELECT xid::text AS xid, id FROM feed_checkpoints WHERE consumer = $1`, [consumer]);
  return rows[0] ? { xid: rows[0].xid, id: rows[0].id } : null;
}

export async function saveCheckpoint(db: Db, consumer: string, p: Position): Promise<void> {
  await db.query(
    `INSERT INTO feed_checkpoints (consumer, xid, id) VALUES ($1, $2::xid8, $3)
     ON CONFLICT (consumer) DO UPDATE SET xid = excluded.xid, id = excluded.id, updated_at = clock_timestamp()`,
    [consumer, p.xid, p.id],
  );
}

export async function dropCheckpoint(db: Db, consumer: string): Promise<void> {
  await db.query(`DELETE FROM feed_checkpoints WHERE consumer = $1`, [consumer]);
}
