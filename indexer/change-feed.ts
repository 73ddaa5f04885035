import type { Pool, PoolClient } from '../src/db/pool.js';

// Reading the durable change feed without skipping late commits.
//
// Feed ids are assigned at insert but transactions commit in any order, so "id > last" could pass
// over a row whose transaction commits later. Instead rows are read in (xid, id) order and only
// from transactions older than the snapshot's xmin, i.e. transactions that have all finished:
// once the position passes (x, i), no row at or below it can still appear.

type Db = Pool | PoolClient;

export interface Position {
  xid: string; // xid8 as decimal text (64-bit)
  id: number;
}

export const START: Position = { xid: '0', id: 0 };

export interface FeedRow {
  id: number;
  xid: string;
  entity: 'listing' | 'seller' | 'product' | 'sku' | 'store' | 'variant' | 'platform';
  k1: number | null;
  k2: number | null;
  ktext: string | null;
  createdAt: Date;
}

export async function readFeed(db: Db, after: Position, limit: number): Promise<FeedRow[]> {
  const { rows } = await db.query(
    `SELECT id, xid::text AS xid, entity, k1, k2, ktext, created_at
       FROM change_feed
      WHERE (xid, id) > ($1::xid8, $2::bigint)
        AND xid < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY xid, id
      LIMIT $3`,
    [after.xid, after.id, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    xid: r.xid,
    entity: r.entity,
    k1: r.k1,
    k2: r.k2,
    ktext: r.ktext,
    createdAt: r.created_at,
  }));
}

export function lastPosition(rows: FeedRow[], fallback: Position): Position {
  const last = rows[rows.length - 1];
  return last ? { xid: last.xid, id: last.id } : fallback;
}

/** A position no change committed after this call can be at or below (for rebuild start points). */
export async function horizon(db: Db): Promise<Position> {
  const { rows } = await db.query(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xid`);
  return { xid: rows[0].xid, id: 0 };
}

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

/** Deletes feed rows every consumer has passed; keeps the table small. */
export async function pruneFeed(db: Db): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM change_feed f
      USING (SELECT xid, id FROM feed_checkpoints ORDER BY xid, id LIMIT 1) m
      WHERE (f.xid, f.id) <= (m.xid, m.id)`,
  );
  return rowCount ?? 0;
}

/** Age in seconds of the oldest change not yet indexed (0 when caught up), and how many wait. */
export async function feedLag(db: Db, p: Position): Promise<{ lagSeconds: number; pending: number }> {
  const { rows } = await db.query(
    `SELECT coalesce(extract(epoch FROM clock_timestamp() - min(created_at)), 0)::float8 AS lag, count(*)::int AS pending
       FROM change_feed WHERE (xid, id) > ($1::xid8, $2::bigint)`,
    [p.xid, p.id],
  );
  return { lagSeconds: rows[0].lag, pending: rows[0].pending };
}
