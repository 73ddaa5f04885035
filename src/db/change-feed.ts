import type { Pool, PoolClient } from './pool.js';
import { feedGuard, type Position } from './feed-guard.js';

// The change_feed table: rows in commit order (see ./feed-guard.ts for why and how).

type Db = Pool | PoolClient;

export interface FeedRow {
  id: number;
  xid: string;
  entity: 'listing' | 'seller' | 'product' | 'sku' | 'store' | 'variant' | 'platform' | 'order';
  k1: number | null;
  k2: number | null;
  ktext: string | null;
  createdAt: Date;
}

export async function readFeed(db: Db, after: Position, limit: number): Promise<FeedRow[]> {
  const guard = await feedGuard(db);
  const { rows } = await db.query(
    // The text form gets its own name: ORDER BY prefers output names, and xids ordered as text
    // ('1000' < '999') would let LIMIT cut rows below the new checkpoint.
    `SELECT f.id, f.xid::text AS xid_text, f.entity, f.k1, f.k2, f.ktext, f.created_at
       FROM change_feed f
      WHERE (f.xid, f.id) > ($1::xid8, $2::bigint) AND f.xid < $3::xid8
      ORDER BY f.xid, f.id
      LIMIT $4`,
    [after.xid, after.id, guard, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    xid: r.xid_text,
    entity: r.entity,
    k1: r.k1,
    k2: r.k2,
    ktext: r.ktext,
    createdAt: r.created_at,
  }));
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
