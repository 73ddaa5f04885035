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
  /** A listing update that changed its offer document and no card (a repricing): the migration's capture_listing_updates says which. */
  offerOnly: boolean;
  createdAt: Date;
}

export async function readFeed(db: Db, after: Position, limit: number): Promise<FeedRow[]> {
  const guard = await feedGuard(db);
  const { rows } = await db.query(
    // The text form gets its own name: ORDER BY prefers output names, and xids ordered as text
    // ('1000' < '999') would let LIMIT cut rows below the new checkpoint.
    `SELECT f.id, f.xid::text AS xid_text, f.entity, f.k1, f.k2, f.ktext, f.offer_only, f.created_at
       FROM change_feed f
      WHERE (f.xid, f.id) > ($1::xid8, $2::bigint) AND f.xid < $3::xid8
      ORDER BY f.xid, f.id
      LIMIT $4`,
    [after.xid, after.id, guard, limit],
  );
  return rows.map(feedRow);
}

/** A feed row as both readers select it (the xid as text, as `xid_text`). */
function feedRow(r: {
  id: number;
  xid_text: string;
  entity: FeedRow['entity'];
  k1: number | null;
  k2: number | null;
  ktext: string | null;
  offer_only: boolean;
  created_at: Date;
}): FeedRow {
  return { id: Number(r.id), xid: r.xid_text, entity: r.entity, k1: r.k1, k2: r.k2, ktext: r.ktext, offerOnly: r.offer_only, createdAt: r.created_at };
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

/** Entities whose feed rows name a seller in k1: the rows a seller's lane holds. */
const SELLER_ROWS = `entity IN ('listing', 'seller', 'order')`;

/**
 * Rows after `after` (below the guard, in commit order) that are not of the sellers `aside`, for
 * the small-changes lane, which runs ahead of the checkpoint. At most `scan` rows are looked at and
 * `limit` taken; `scanned` is the position of the last row looked at, taken or not (the lane's next
 * start), so each row is scanned once however long the burst it skips.
 */
export async function readFeedAside(
  db: Db,
  after: Position,
  aside: readonly number[],
  limit: number,
  scan: number,
): Promise<{ rows: FeedRow[]; scanned: Position }> {
  const guard = await feedGuard(db);
  const { rows } = await db.query(
    `WITH scanned AS (
       SELECT f.* FROM change_feed f
        WHERE (f.xid, f.id) > ($1::xid8, $2::bigint) AND f.xid < $3::xid8
        ORDER BY f.xid, f.id
        LIMIT $4),
     marked AS (
       SELECT s.*, NOT (${SELLER_ROWS} AND k1 = ANY($5::bigint[])) AS taken,
              row_number() OVER (ORDER BY s.xid DESC, s.id DESC) AS from_end
         FROM scanned s)
     SELECT id, xid::text AS xid_text, entity, k1, k2, ktext, offer_only, created_at, taken
       FROM marked WHERE taken OR from_end = 1
      ORDER BY xid, id`,
    [after.xid, after.id, guard, scan, aside],
  );
  const last = rows[rows.length - 1];
  let scanned: Position = last ? { xid: last.xid_text, id: Number(last.id) } : after;
  const taken: FeedRow[] = [];
  for (const r of rows) {
    if (!r.taken) continue;
    if (taken.length === limit) {
      // Cut: the lane goes on after the last row it took.
      const end = taken[taken.length - 1]!;
      scanned = { xid: end.xid, id: end.id };
      break;
    }
    taken.push(feedRow(r));
  }
  return { rows: taken, scanned };
}

/** Changes waiting in one lane, and the age in seconds of the oldest (0 when none wait). */
export interface LaneBacklog {
  pending: number;
  lagSeconds: number;
}

export interface FeedBacklog {
  /** Every change after the checkpoint. */
  total: LaneBacklog;
  /** Sellers with at least `burstMin` changes after the checkpoint, largest first (their own lanes). */
  bursts: (LaneBacklog & { sellerId: number })[];
  /** Every other change the small lane has not passed yet. */
  small: LaneBacklog;
}

/**
 * The backlog as the feed holds it (not as the last successful batch saw it): read on every poll,
 * so a stall shows while batches fail. Changes after `checkpoint`; the small lane's after `ahead`
 * (where it has read up to; the checkpoint itself when it is not running ahead).
 */
export async function feedBacklog(db: Db, checkpoint: Position, ahead: Position, burstMin: number, maxBursts: number): Promise<FeedBacklog> {
  const { rows } = await db.query(
    `WITH p AS (
       SELECT CASE WHEN ${SELLER_ROWS} THEN k1 END AS seller, xid, id, created_at
         FROM change_feed WHERE (xid, id) > ($1::xid8, $2::bigint)),
     bursts AS (
       SELECT seller, count(*)::int AS n, min(created_at) AS oldest FROM p WHERE seller IS NOT NULL
        GROUP BY seller HAVING count(*) >= $5 ORDER BY count(*) DESC, seller LIMIT $6),
     small AS (
       SELECT count(*)::int AS n, min(created_at) AS oldest FROM p
        WHERE (xid, id) > ($3::xid8, $4::bigint) AND (seller IS NULL OR seller NOT IN (SELECT seller FROM bursts))),
     total AS (SELECT count(*)::int AS n, min(created_at) AS oldest FROM p)
     SELECT lane, seller, n, greatest(coalesce(extract(epoch FROM clock_timestamp() - oldest), 0), 0)::float8 AS lag
       FROM (SELECT 'burst' AS lane, seller, n, oldest FROM bursts
             UNION ALL SELECT 'small', NULL, n, oldest FROM small
             UNION ALL SELECT 'total', NULL, n, oldest FROM total) l`,
    [checkpoint.xid, checkpoint.id, ahead.xid, ahead.id, burstMin, maxBursts],
  );
  const lane = (r: { n: number; lag: number }): LaneBacklog => ({ pending: r.n, lagSeconds: r.lag });
  const out: FeedBacklog = { total: { pending: 0, lagSeconds: 0 }, bursts: [], small: { pending: 0, lagSeconds: 0 } };
  for (const r of rows) {
    if (r.lane === 'burst') out.bursts.push({ sellerId: Number(r.seller), ...lane(r) });
    else if (r.lane === 'small') out.small = lane(r);
    else out.total = lane(r);
  }
  return out;
}
