import type { Client } from '@elastic/elasticsearch';

// A node leaving the cluster (a rolling restart's SIGTERM) answers the requests it still holds
// with `node_closed_exception` or "shutting down", or drops their connections, and once gone
// refuses new ones. The other nodes have the same data, so such a read is worth one more try
// elsewhere; anything else (a bad query, a red index, a timeout) is not. Reads only: a write
// retried blindly could apply twice.

const LEAVING_TYPES = new Set([
  'node_closed_exception',
  'node_disconnected_exception',
  'node_not_connected_exception',
  'connect_transport_exception',
  'send_request_transport_exception',
]);
const LEAVING_REASON = /node (is )?(closed|closing|shutting down)|shutting down/i;
const CONNECTION_DROPPED = /ECONNRESET|socket hang up|other side closed|EPIPE/i;

/** Any error object in an Elasticsearch error body (itself, its causes and shard failures). */
function* errorObjects(value: unknown, depth = 0): Generator<Record<string, unknown>> {
  if (depth > 8 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) yield* errorObjects(v, depth + 1);
    return;
  }
  const o = value as Record<string, unknown>;
  yield o;
  for (const key of ['error', 'caused_by', 'root_cause', 'failed_shards', 'reason', 'responses', 'docs']) {
    if (typeof o[key] === 'object') yield* errorObjects(o[key], depth + 1);
  }
}

function bodySaysLeaving(body: unknown): boolean {
  for (const o of errorObjects(body)) {
    if (typeof o.type === 'string' && LEAVING_TYPES.has(o.type)) return true;
    if (typeof o.reason === 'string' && LEAVING_REASON.test(o.reason)) return true;
  }
  return false;
}

/**
 * True when `err` says the node that answered is leaving (or dropped the connection): an
 * Elasticsearch error body, a connection error, or an error whose `cause` is an item's error of an
 * _msearch or _mget answer.
 */
export function isNodeLeaving(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'ConnectionError' && CONNECTION_DROPPED.test(`${err.message} ${String((err.cause as Error | undefined)?.message ?? '')}`)) return true;
  const body = (err as { meta?: { body?: unknown } }).meta?.body;
  if (body !== undefined && bodySaysLeaving(body)) return true;
  return err.cause !== undefined && (err.cause instanceof Error ? isNodeLeaving(err.cause) : bodySaysLeaving(err.cause));
}

/** The id (URL) of the node that answered with `err`, when the client says (the error holds a redacted copy of it). */
function nodeIdOf(err: unknown): string | undefined {
  const id = (err as { meta?: { meta?: { connection?: { id?: unknown } | null } } }).meta?.meta?.connection?.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * True when a read failed for want of a connection that the client's own retries did not find
 * (refused, reset, dropped): worth one more try on a cluster. The client retries such an error on
 * the next node of its pool, but its default pool picks by weight and only lowers a failed node's
 * weight a little at first: when a node goes down under concurrent requests, every retry of one
 * request can be handed to that same node, and the read fails with ECONNREFUSED while two nodes
 * answer. A timeout is not such an error (the client never retries it: a hung cluster must not
 * cost twice the wait).
 */
function connectionLost(err: unknown): boolean {
  return err instanceof Error && err.name === 'ConnectionError';
}

/**
 * Runs `read` on `es`; when its node is leaving, or its connection failed on every try, marks that
 * node dead in the client's pool and runs it once more on a client of the same pool that leaves
 * that node out. Marking alone is not enough: the first mark lowers a node's weight by a few
 * percent, and the next pick of a busy pool can be the same node again (a rolling restart's
 * ECONNREFUSED then reached a buyer as a Degraded Mode answer). Any other error, and a second
 * failure, is the caller's.
 */
export async function readRetryingLeavingNode<T>(es: Client, read: (client: Client) => Promise<T>): Promise<T> {
  try {
    return await read(es);
  } catch (err) {
    if (!(isNodeLeaving(err) || connectionLost(err)) || es.connectionPool.size < 2) throw err;
    const id = nodeIdOf(err);
    const connection = es.connectionPool.connections.find((c) => c.id === id);
    if (!connection) return read(es);
    es.connectionPool.markDead(connection);
    return read(es.child({ nodeFilter: (c) => c.id !== id }));
  }
}
