import type { Client } from '@elastic/elasticsearch';
import type { Pool } from '../src/db/pool.js';
import { quarantine, release, type Refusal } from '../src/db/index-quarantine.js';
import { BulkError, serializeOps, writeSerialized, type BulkBody } from './bulk.js';
import { stepTimes, timed, type StepTimes } from './step-times.js';

/** What one write did besides writing: documents refused (and quarantined), quarantined documents now written. */
export interface QuarantineCounts {
  quarantined: number;
  released: number;
}

/**
 * A bulk request at least this large with every document refused is not quarantined but retried:
 * a mapping or index that refuses everything (an operator's mistake) must stall the indexer, which
 * the lag alerts see, rather than hide the catalog document by document.
 */
export const MASS_REFUSAL_MIN = 50;

export interface WriteUnitOptions {
  /** Sends the unit's `i`th body; the documents refused for a reason of their own (writeSerialized by default). */
  send?: (body: BulkBody, i: number) => Promise<Refusal[]>;
  /** Where the time goes: the quarantine table's reads and writes are the step `quarantine`. */
  times?: StepTimes;
}

/**
 * Writes one unit of bulk bodies in order (`ids`: every document they write or delete). A
 * document Elasticsearch refuses for a reason of its own (bulk-errors.ts decides) is recorded in
 * the quarantine table and deleted from the index (buyers must not see its previous version as if
 * it were current: the listing is hidden until its row's next change is accepted); the rest is
 * written and the batch goes on. Documents written are released from quarantine. A failure the
 * cluster may recover from throws (writeSerialized), and so does a request whose every document
 * was refused: the batch is retried with its checkpoint held.
 */
export async function writeOrQuarantine(
  pool: Pool,
  es: Client,
  index: string,
  bodies: readonly BulkBody[],
  ids: readonly string[],
  { send = (body) => writeSerialized(es, body), times = stepTimes() }: WriteUnitOptions = {},
): Promise<QuarantineCounts> {
  const refused: Refusal[] = [];
  for (const [i, body] of bodies.entries()) {
    const refusals = await send(body, i);
    if (refusals.length === 0) continue;
    if (body.items >= MASS_REFUSAL_MIN && new Set(refusals.map((r) => r.id)).size === body.items) {
      throw new BulkError(
        `bulk: all ${body.items} documents refused, first ${refusals[0]!.id}: ${refusals[0]!.reason}; not quarantined (the index refuses everything)`,
      );
    }
    refused.push(...refusals);
  }
  if (refused.length === 0) return { quarantined: 0, released: await timed(times, 'quarantine', () => release(pool, ids)) };
  const refusedIds = new Set(refused.map((r) => r.id));
  // A delete is never refused for its document: anything failing here is the cluster's, and throws.
  await writeSerialized(
    es,
    serializeOps(
      index,
      [...refusedIds].map((id) => ({ id, doc: null })),
    ),
  );
  const written = ids.filter((id) => !refusedIds.has(id));
  const released = await timed(times, 'quarantine', async () => {
    await quarantine(pool, refused);
    return release(pool, written);
  });
  return { quarantined: refusedIds.size, released };
}
