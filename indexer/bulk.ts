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

/** One bulk request body, already serialized (NDJSON as UTF-8 bytes), and how many items it holds. */
export interface BulkBody {
  body: Buffer;
  items: number;
}

/**
 * The bulk body of these ops: the NDJSON the client's own serializer would write for them, made
 * ahead of time so a pipelined writer (rebuild) can serialize the next chunk while the last one is
 * in flight, and handed over as bytes (a string body is scanned once for its length and again to
 * encode it).
 */
export function serializeOps(index: string, ops: DocOp[]): BulkBody {
  // Action lines byte-identical to JSON.stringify({ index: { _index, _id } }), without building
  // and walking two objects per document.
  const indexAction = `{"index":{"_index":${JSON.stringify(index)},"_id":`;
  const deleteAction = `{"delete":{"_index":${JSON.stringify(index)},"_id":`;
  const lines: string[] = [];
  for (const op of ops) {
    if (op.doc) lines.push(`${indexAction}${JSON.stringify(op.id)}}}`, JSON.stringify(op.doc));
    else lines.push(`${deleteAction}${JSON.stringify(op.id)}}}`);
  }
  lines.push('');
  return { body: Buffer.from(lines.join('\n')), items: ops.length };
}

/**
 * The response keeps only what the error check reads: a full bulk response repeats index name,
 * version, shards and seq_no for every item (~200 bytes each) for Elasticsearch to write and this
 * process to parse.
 */
export const BULK_FILTER_PATH = 'errors,items.*._id,items.*.status,items.*.error';

interface BulkItem {
  _id?: string;
  status?: number;
  error?: { type?: string; reason?: string };
}

export async function writeSerialized(es: Client, body: BulkBody): Promise<void> {
  if (body.items === 0) return;
  const res = await es.transport.request<{ errors: boolean; items?: Record<string, BulkItem>[] }>(
    { method: 'POST', path: '/_bulk', bulkBody: body.body, querystring: { refresh: 'false', filter_path: BULK_FILTER_PATH } },
    { requestTimeout: 120_000 },
  );
  if (!res.errors) return;
  const failed = (res.items ?? []).map((item) => Object.values(item)[0]!).filter((r) => r.error && !(r.status === 404));
  if (failed.length > 0) {
    const first = failed[0]!;
    throw new BulkError(`bulk: ${failed.length} of ${body.items} items failed; first ${first._id}: ${first.error?.type} ${first.error?.reason}`);
  }
}
