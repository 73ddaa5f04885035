import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import { quarantine, release } from '../src/db/index-quarantine.js';
import type { DocOp } from './build-ops.js';
import { BulkError, writeOps } from './bulk.js';

/** What one write did besides writing: documents refused (and quarantined), quarantined documents now written. */
export interface QuarantineCounts {
  quarantined: number;
  released: number;
}

/**
 * A chunk at least this large with every document refused is not quarantined but retried: a
 * mapping or index that refuses everything (an operator's mistake) must stall the indexer, which
 * the lag alerts see, rather than hide the catalog document by document.
 */
export const MASS_REFUSAL_MIN = 50;

/**
 * Writes a chunk's ops. A document Elasticsearch refuses for a reason of its own is recorded in
 * the quarantine table and deleted from the index (buyers must not see its previous version as
 * if it were current: the listing is hidden until its row's next change is accepted); the rest
 * is written and the batch goes on. Documents written are released from quarantine. A failure the
 * cluster may recover from still throws, so the batch is retried with its checkpoint held.
 */
export async function writeOrQuarantine(pool: Pool, es: Client, index: string, ops: DocOp[]): Promise<QuarantineCounts> {
  const refused = await writeOps(es, index, ops);
  if (refused.length > 0) {
    const ids = new Set(refused.map((r) => r.id));
    if (ids.size === ops.length && ops.length >= MASS_REFUSAL_MIN) {
      throw new BulkError(
        `bulk: all ${ops.length} documents refused, first ${refused[0]!.id}: ${refused[0]!.reason}; not quarantined (the index refuses everything)`,
      );
    }
    // A delete is never refused for its document: anything failing here is the cluster's, and throws.
    await writeOps(
      es,
      index,
      [...ids].map((id) => ({ id, doc: null })),
    );
    await quarantine(pool, refused);
    const written = ops.filter((op) => !ids.has(op.id)).map((op) => op.id);
    return { quarantined: ids.size, released: await release(pool, written) };
  }
  return {
    quarantined: 0,
    released: await release(
      pool,
      ops.map((op) => op.id),
    ),
  };
}
