import { describe, expect, it } from 'vitest';
import { classifyItemError, describeItemError } from '../../../indexer/bulk-errors.js';

// Which bulk item errors belong to the document (quarantined: a retry meets them again) and which
// to a cluster that cannot take the write now (the batch is retried, nothing quarantined).

describe('classifyItemError', () => {
  it.each([
    ['document_parsing_exception', 400, "[1:7] failed to parse field [sortKey] of type [keyword] in document with id 'o:1:2'"],
    ['document_parsing_exception', 400, 'The number of nested documents has exceeded the allowed limit of [10000].'],
    ['mapper_parsing_exception', 400, 'failed to parse field [price] of type [integer]'],
    ['strict_dynamic_mapping_exception', 400, 'mapping set to strict, dynamic introduction of [x] within [_doc] is not allowed'],
    ['illegal_argument_exception', 400, 'Document contains at least one immense term in field="sortKey"'],
    ['document_parsing_exception', undefined, 'a filtered answer carries no status'],
  ])('%s (%s) is the document’s', (type, status, reason) => {
    expect(classifyItemError(status, { type, reason })).toBe('document');
  });

  it('reads the cause chain: a refusal wrapped in another type is still the document’s', () => {
    expect(
      classifyItemError(400, {
        type: 'document_parsing_exception',
        reason: 'failed to parse',
        caused_by: { type: 'max_bytes_length_exceeded_exception', reason: 'bytes can be at most 32766 in length' },
      }),
    ).toBe('document');
    expect(classifyItemError(400, { type: 'some_wrapper_exception', caused_by: { type: 'illegal_argument_exception' } })).toBe('document');
  });

  it.each([
    ['es_rejected_execution_exception', 429],
    ['cluster_block_exception', 403],
    ['cluster_block_exception', undefined],
    ['unavailable_shards_exception', 503],
    ['circuit_breaking_exception', 429],
    ['node_closed_exception', 500],
    ['index_not_found_exception', 404],
    ['process_cluster_event_timeout_exception', 503],
    ['version_conflict_engine_exception', 409],
  ])('%s (%s) is transient', (type, status) => {
    expect(classifyItemError(status, { type, reason: 'x' })).toBe('transient');
  });

  it('a status of an unavailable cluster wins over a document-looking type', () => {
    expect(classifyItemError(429, { type: 'illegal_argument_exception' })).toBe('transient');
    expect(classifyItemError(503, { type: 'document_parsing_exception' })).toBe('transient');
  });

  it('a transient cause wins over a document-looking wrapper', () => {
    expect(classifyItemError(400, { type: 'illegal_argument_exception', caused_by: { type: 'es_rejected_execution_exception' } })).toBe('transient');
  });

  it('an unknown type is transient, even at 400: only known refusals are quarantined', () => {
    expect(classifyItemError(400, { type: 'action_request_validation_exception' })).toBe('transient');
    expect(classifyItemError(undefined, {})).toBe('transient');
  });
});

describe('describeItemError', () => {
  it('names the error and its causes', () => {
    expect(describeItemError({ type: 'a', reason: 'outer', caused_by: { type: 'b', reason: 'inner' } })).toBe('a: outer <- b: inner');
  });
});
