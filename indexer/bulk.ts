import type { Client } from '@elastic/elasticsearch';
import type { DocOp } from './build-ops.js';

export class BulkError extends Error {}

/**
 * Writes one chunk with the bulk API and fails loudly on any item error (a delete of a missing
 * document is fine), so the caller retries the batch instead of advancing its checkpoint.
 */
export async function writeOps(es: Client, index: string, ops: DocOp[]): Promise<void> {
  await writeSerialized(es, serializeOps(index, ops));
}

/** One bulk request body, already serialized (NDJSON lines), and how many items it holds. */
export interface BulkBody {
  lines: string[];
  items: number;
}

/**
 * The bulk body of these ops: the same NDJSON the client would write for them, made ahead of time
 * so a pipelined writer (rebuild) can serialize the next chunk while the last one is in flight.
 */
export function serializeOps(index: string, ops: DocOp[]): BulkBody {
  const lines: string[] = [];
  for (const op of ops) {
    if (op.doc) lines.push(JSON.stringify({ index: { _index: index, _id: op.id } }), JSON.stringify(op.doc));
    else lines.push(JSON.stringify({ delete: { _index: index, _id: op.id } }));
  }
  return { lines, items: ops.length };
}

export async function writeSerialized(es: Client, body: BulkBody): Promise<void> {
  if (body.items === 0) return;
  // Strings are sent as they are (the client's NDJSON serializer only stringifies objects).
  const res = await es.bulk({ operations: body.lines, refresh: false }, { requestTimeout: 120_000 });
  if (!res.errors) return;
  const failed = res.items
    .map((item) => Object.values(item)[0]!)
    .filter((r) => r.error && !(r.status === 404));
  if (failed.length > 0) {
    const first = failed[0]!;
    throw new BulkError(`bulk: ${failed.length} of ${body.items} items failed; first ${first._id}: ${first.error?.type} ${first.error?.reason}`);
  }
}
