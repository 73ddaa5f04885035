import type { Pool, PoolClient } from './pool.js';

// The documents Elasticsearch refused for a reason of their own (migrations/*_index-quarantine.sql).

type Db = Pool | PoolClient;

export interface Refusal {
  /** The document id (docId). */
  id: string;
  /** Elasticsearch's error type, e.g. document_parsing_exception. */
  type: string;
  reason: string;
}

export interface QuarantineRow extends Refusal {
  firstRefusedAt: Date;
  lastRefusedAt: Date;
  refusals: number;
}

/** A reason can quote the refused value (a preview of tens of kilobytes): kept to this many characters. */
const REASON_CHARS = 1000;

/** Records (or records again) each refusal. */
export async function quarantine(db: Db, refusals: readonly Refusal[]): Promise<void> {
  if (refusals.length === 0) return;
  // One row per id: a statement may not update the same row twice.
  const byId = new Map(refusals.map((r) => [r.id, r]));
  await db.query(
    `INSERT INTO index_quarantine AS q (doc_id, error_type, reason)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
     ON CONFLICT (doc_id) DO UPDATE
        SET error_type = EXCLUDED.error_type, reason = EXCLUDED.reason,
            last_refused_at = now(), refusals = q.refusals + 1`,
    [[...byId.keys()], [...byId.values()].map((r) => r.type), [...byId.values()].map((r) => storable(r.reason))],
  );
}

// PostgreSQL text cannot hold U+0000, which a reason quoting a sort key contains.
const storable = (reason: string) => reason.slice(0, REASON_CHARS).replaceAll('\u0000', '\\u0000');

/** Deletes the rows of documents now written; how many there were. */
export async function release(db: Db, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rowCount } = await db.query('DELETE FROM index_quarantine WHERE doc_id = ANY($1::text[])', [ids]);
  return rowCount ?? 0;
}

/** Which of these documents are quarantined (refused, so absent from the index). */
export async function quarantinedAmong(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await db.query<{ doc_id: string }>('SELECT doc_id FROM index_quarantine WHERE doc_id = ANY($1::text[])', [ids]);
  return new Set(rows.map((r) => r.doc_id));
}

/** The database's clock now: what `releaseRefusedBefore` compares with. */
export async function quarantineClock(db: Db): Promise<Date> {
  const { rows } = await db.query<{ now: Date }>('SELECT clock_timestamp() AS now');
  return rows[0]!.now;
}

/** Deletes the rows last refused before `at` (a rebuild begun at `at` wrote or refused every document again). */
export async function releaseRefusedBefore(db: Db, at: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM index_quarantine WHERE last_refused_at < $1', [at]);
  return rowCount ?? 0;
}

export async function quarantineSize(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM index_quarantine');
  return rows[0]!.n;
}

/** The quarantined documents, most recently refused first. */
export async function quarantinedDocuments(db: Db, limit = 100): Promise<QuarantineRow[]> {
  const { rows } = await db.query<{
    doc_id: string;
    error_type: string;
    reason: string;
    first_refused_at: Date;
    last_refused_at: Date;
    refusals: number;
  }>('SELECT * FROM index_quarantine ORDER BY last_refused_at DESC, doc_id LIMIT $1', [limit]);
  return rows.map((r) => ({
    id: r.doc_id,
    type: r.error_type,
    reason: r.reason,
    firstRefusedAt: r.first_refused_at,
    lastRefusedAt: r.last_refused_at,
    refusals: r.refusals,
  }));
}
