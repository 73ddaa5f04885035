// What a bulk item's error means: the document itself is refused (a retry would meet the same
// refusal, so the document is quarantined and the batch goes on), or the cluster could not take
// the write now (the batch is retried). Pure, so the rule is pinned by unit tests
// (test/unit/indexer/bulk-errors.test.ts).

/** An item's `error` as Elasticsearch answers it (with `caused_by` chains). */
export interface BulkItemError {
  type?: string;
  reason?: string | null;
  caused_by?: BulkItemError;
}

/**
 * Error types that belong to the document: its source cannot be parsed or mapped, a value does
 * not fit its field (an immense keyword term, a number out of range, too many nested objects),
 * or it is too large.
 */
const DOCUMENT_ERRORS = new Set([
  'mapper_parsing_exception',
  'document_parsing_exception',
  'strict_dynamic_mapping_exception',
  'illegal_argument_exception',
  'max_bytes_length_exceeded_exception',
  'json_parse_exception',
  'x_content_parse_exception',
  'number_format_exception',
  'document_too_large_exception',
]);

/**
 * Error types of a cluster that cannot take the write now, whatever the status says: a full
 * write queue, a block (read-only, disk watermark), shards unavailable or moving, a node going
 * away, a tripped circuit breaker, a missing index. The batch is retried; nothing is quarantined.
 */
const TRANSIENT_ERRORS = new Set([
  'es_rejected_execution_exception',
  'cluster_block_exception',
  'unavailable_shards_exception',
  'no_shard_available_action_exception',
  'shard_not_found_exception',
  'primary_missing_action_exception',
  'node_closed_exception',
  'node_not_connected_exception',
  'connect_transport_exception',
  'circuit_breaking_exception',
  'index_not_found_exception',
  'process_cluster_event_timeout_exception',
  'timeout_exception',
  'receive_timeout_transport_exception',
  'version_conflict_engine_exception',
]);

/** Statuses of a refusal by the document: bad request, payload too large. */
const DOCUMENT_STATUSES = new Set([400, 413]);

function causes(error: BulkItemError): string[] {
  const out: string[] = [];
  for (let e: BulkItemError | undefined = error, depth = 0; e && depth < 10; e = e.caused_by, depth++) if (e.type) out.push(e.type);
  return out;
}

/**
 * `document` when the item was refused for a reason of its own, `transient` otherwise. Anything
 * not known to be the document's fault counts as transient: a wrong retry costs a stalled batch
 * (seen in the metrics and alerts), a wrong quarantine a listing missing from search.
 */
export function classifyItemError(status: number | undefined, error: BulkItemError): 'document' | 'transient' {
  const types = causes(error);
  if (status === 429 || (status !== undefined && status >= 500)) return 'transient';
  if (types.some((t) => TRANSIENT_ERRORS.has(t))) return 'transient';
  if (status !== undefined && !DOCUMENT_STATUSES.has(status)) return 'transient';
  return types.some((t) => DOCUMENT_ERRORS.has(t)) ? 'document' : 'transient';
}

/** One line of an error: its type and reason, and its causes'. */
export function describeItemError(error: BulkItemError): string {
  const parts: string[] = [];
  for (let e: BulkItemError | undefined = error, depth = 0; e && depth < 10; e = e.caused_by, depth++) parts.push(`${e.type ?? '?'}: ${e.reason ?? ''}`);
  return parts.join(' <- ');
}
