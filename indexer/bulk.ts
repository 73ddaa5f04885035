import type { Client } from '@elastic/elasticsearch';
import type { DocOp } from './build-ops.js';

export class BulkError extends Error {}

/**
 * Writes one chunk with the bulk API and fails loudly on any item error (a delete of a missing
 * document is fine), so the caller retries the batch instead of advancing its checkpoint.
 */
export async function writeOps(es: Client, index: string, ops: DocOp[]): Promise<void> {
  if (ops.length === 0) return;
  const operations: unknown[] = [];
  for (const op of ops) {
    if (op.doc) operations.push({ index: { _index: index, _id: op.id } }, op.doc);
    else operations.push({ delete: { _index: index, _id: op.id } });
  }
  const res = await es.bulk({ operations, refresh: false }, { requestTimeout: 120_000 });
  if (!res.errors) return;
  const failed = res.items
    .map((item) => Object.values(item)[0]!)
    .filter((r) => r.error && !(r.status === 404));
  if (failed.length > 0) {
    const first = failed[0]!;
    throw new BulkError(`bulk: ${failed.length} of ${ops.length} items failed; first ${first._id}: ${first.error?.type} ${first.error?.reason}`);
  }
}
