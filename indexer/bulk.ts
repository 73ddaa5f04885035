import type { Client } from '@elastic/elasticsearch';
import type { DocOp } from './build-ops.js';
import { offerDocPieces } from './offer-json.js';
import { classifyItemError, describeItemError, type BulkItemError } from './bulk-errors.js';
import type { Refusal } from '../src/db/index-quarantine.js';

/** Items the cluster could not take now: the batch is retried. */
export class BulkError extends Error {}

/** One bulk request body, already serialized (NDJSON as UTF-8 bytes), and how many items it holds. */
export interface BulkBody {
  body: Buffer;
  items: number;
  /** Set when the bytes live in a BodyPool's buffer: hands it back once the request is done. */
  release?: () => void;
}

/**
 * Body buffers reused by a pipelined writer. A fresh Buffer per body (16 MB for a chunk of cards)
 * is external memory that V8 answers with a full collection every ~64 MB of it: in a rebuild that
 * marks the card folds over and over, a large part of the producer's time (BENCHMARKS.md, "The
 * rebuild's producer"). Pooled buffers are allocated once and handed back after each request.
 */
export interface BodyPool {
  take(bytes: number): Buffer;
  give(buffer: Buffer): void;
}

export function bodyPool(): BodyPool {
  const free: Buffer[] = [];
  return {
    take(bytes) {
      const i = free.findIndex((b) => b.length >= bytes);
      if (i >= 0) return free.splice(i, 1)[0]!;
      // Rounded up to a power of two, so a slightly larger chunk later still fits a returned buffer.
      return Buffer.allocUnsafeSlow(2 ** Math.ceil(Math.log2(Math.max(bytes, 1 << 20))));
    },
    give(buffer) {
      free.push(buffer);
    },
  };
}

/**
 * The bulk body of these ops: the NDJSON the client's own serializer would write for them, made
 * ahead of time so a pipelined writer (rebuild) can serialize the next chunk while the last one is
 * in flight, and handed over as bytes. Each line is encoded straight into a reused buffer: joining
 * the lines first would copy every document once more, and encode the whole body as two-byte text
 * as soon as one document holds a character beyond Latin-1. `ops` is iterated once, so a lazy
 * iterable builds each document only when its line is written (a rebuild's cards).
 */
export function serializeOps(index: string, ops: Iterable<DocOp>, pool?: BodyPool): BulkBody {
  // Action lines byte-identical to JSON.stringify({ index: { _index, _id } }), without building
  // and walking two objects per document.
  const indexAction = `{"index":{"_index":${JSON.stringify(index)},"_id":`;
  const deleteAction = `{"delete":{"_index":${JSON.stringify(index)},"_id":`;
  let pos = 0;
  const room = (bytes: number) => {
    if (pos + bytes > scratch.length) {
      const grown = Buffer.allocUnsafe(Math.max(pos + bytes, scratch.length * 2));
      scratch.copy(grown, 0, 0, pos);
      scratch = grown;
    }
  };
  // UTF-8 takes at most 3 bytes per UTF-16 code unit.
  const text = (s: string) => {
    room(s.length * 3);
    pos += scratch.write(s, pos);
  };
  const bytes = (b: Uint8Array) => {
    room(b.length);
    scratch.set(b, pos);
    pos += b.length;
  };
  const newline = () => {
    room(1);
    scratch[pos++] = 0x0a;
  };
  let items = 0;
  for (const op of ops) {
    items += 1;
    const doc = op.doc;
    if (!doc) {
      text(`${deleteAction}${JSON.stringify(op.id)}}}\n`);
      continue;
    }
    const pieces = doc.docType === 'offer' ? offerDocPieces(doc) : null;
    if (pieces) {
      text(`${indexAction}${JSON.stringify(op.id)}}}\n${pieces[0]}`);
      bytes(pieces[1]);
      text(pieces[2]);
      bytes(pieces[3]);
      newline();
      continue;
    }
    // Cards stay with JSON.stringify: most of their bytes are fresh U+0000-joined tuples, which V8's
    // native escaping writes faster than any hand-made JSON tried (a card writer with cached group
    // parts was byte-identical but slower).
    text(`${indexAction}${JSON.stringify(op.id)}}}\n`);
    text(JSON.stringify(doc));
    newline();
  }
  // A copy: the scratch buffer is reused by the next call while this body waits to be sent.
  if (!pool) return { body: Buffer.from(scratch.subarray(0, pos)), items };
  const backing = pool.take(pos);
  scratch.copy(backing, 0, 0, pos);
  return { body: backing.subarray(0, pos), items, release: () => pool.give(backing) };
}
let scratch = Buffer.allocUnsafe(1 << 22);

/**
 * The response keeps only failures: a full bulk response repeats index name, version, shards and
 * seq_no for every item (~200 bytes each), and even ids and statuses are ~130 MB for a 2,000,000-
 * listing rebuild for Elasticsearch to write and this process to parse. Filtered to errors, an item
 * without one drops out of `items` (a delete of a missing document has none, and sets no `errors`).
 */
export const BULK_FILTER_PATH = 'errors,items.*.error';
/** Which documents were refused: asked only when a filtered answer holds a document's refusal (rare). */
export const BULK_REFUSALS_FILTER_PATH = 'errors,items.*._id,items.*.status,items.*.error';

interface BulkItem {
  _id?: string;
  status?: number;
  error?: BulkItemError;
}
type BulkAnswer = { errors: boolean; items?: Record<string, BulkItem>[] };

/**
 * Sends one bulk body. Items the cluster could not take now (a full queue, a write block,
 * unavailable shards: bulk-errors.ts) fail it with a BulkError, so the caller retries the batch
 * and its checkpoint stays. Documents refused for a reason of their own (mapping, parse, size)
 * are returned instead, and every other item of the body is written: a retry would meet the same
 * refusal forever. The filtered answer does not say which items failed, so a body with refusals
 * is sent once more asking for ids; writing the same documents again is harmless.
 */
export async function writeSerialized(es: Client, body: BulkBody): Promise<Refusal[]> {
  if (body.items === 0) return [];
  const first = await sendBulk(es, body, BULK_FILTER_PATH);
  if (!first.errors) return [];
  const failedFirst = itemErrors(first);
  const transient = failedFirst.find((f) => classifyItemError(f.item.status, f.item.error!) === 'transient');
  if (transient) throw bulkError(failedFirst.length, body.items, transient);
  const second = await sendBulk(es, body, BULK_REFUSALS_FILTER_PATH);
  if (!second.errors) return [];
  const failed = itemErrors(second);
  const stillTransient = failed.find((f) => classifyItemError(f.item.status, f.item.error!) === 'transient');
  if (stillTransient) throw bulkError(failed.length, body.items, stillTransient);
  // A reason can quote the whole refused value: kept short (a rebuild holds every refusal).
  return failed.map(({ item }) => ({ id: item._id ?? '?', type: item.error!.type ?? 'unknown', reason: describeItemError(item.error!).slice(0, 2000) }));
}

function sendBulk(es: Client, body: BulkBody, filterPath: string): Promise<BulkAnswer> {
  return es.transport.request<BulkAnswer>(
    // wait_for_active_shards=all: a write starts only when every copy INDEX_REPLICAS asks for is
    // active, and the primary acknowledges once they all have it; while a copy is missing it waits
    // (up to the bulk's 1 m timeout, then fails and the batch is retried).
    {
      method: 'POST',
      path: '/_bulk',
      bulkBody: body.body,
      querystring: { refresh: 'false', wait_for_active_shards: 'all', filter_path: filterPath },
    },
    { requestTimeout: 120_000 },
  );
}

function itemErrors(res: BulkAnswer): { action: string; item: BulkItem }[] {
  return (res.items ?? [])
    .flatMap((item) => Object.entries(item))
    .filter(([, r]) => r.error)
    .map(([action, item]) => ({ action, item }));
}

function bulkError(failed: number, items: number, first: { action: string; item: BulkItem }): BulkError {
  return new BulkError(`bulk: ${failed} of ${items} items failed; first (${first.action}): ${describeItemError(first.item.error!)}`);
}

/** The last stage of a pipeline of bulk bodies (sendBodies). */
export interface BodySender {
  (bodies: AsyncIterable<BulkBody>): Promise<void>;
  /**
   * Resolves once the stage has ended, with no request left in flight. Await it before cleaning up
   * after a failure: stream.pipeline() rejects on the first error without waiting for its last stage.
   */
  settled(): Promise<void>;
}

/**
 * The last stage of a pipeline of bulk bodies (rebuild.ts): sends them in order with `send`
 * (writeSerialized), up to `concurrency` at a time, hands each body back to its pool and calls
 * `written` after it. The first failure stops it and is thrown, and so is an error of the bodies'
 * source; either way only after every request in flight has ended, so none outlives it (a rebuild
 * deletes its index after a failure, and a late bulk request would create it again).
 */
export function sendBodies(
  send: (body: BulkBody) => Promise<Refusal[]>,
  concurrency: number,
  written: (body: BulkBody, refused: Refusal[]) => void,
): BodySender {
  let running: Promise<void> = Promise.resolve();
  async function run(bodies: AsyncIterable<BulkBody>): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    let failed: { err: unknown } | undefined;
    try {
      for await (const body of bodies) {
        while (inFlight.size >= concurrency && !failed) await Promise.race(inFlight);
        if (failed) break;
        const request: Promise<void> = send(body)
          .then((refused) => {
            body.release?.();
            written(body, refused);
          })
          .catch((err: unknown) => {
            failed ??= { err };
          })
          .finally(() => inFlight.delete(request));
        inFlight.add(request);
      }
    } finally {
      await Promise.all(inFlight);
    }
    if (failed) throw failed.err;
  }
  return Object.assign((bodies: AsyncIterable<BulkBody>) => (running = run(bodies)), {
    settled: () =>
      running.then(
        () => undefined,
        () => undefined,
      ),
  });
}
