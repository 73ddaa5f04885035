import { describe, expect, it } from 'vitest';
import { errors } from '@elastic/elasticsearch';
import { failureReason } from '../../../../src/search/degraded/answer.js';

// Why a read was answered in Degraded Mode, as its log line and the breaker say it: enough to tell
// a node leaving from a red index or a bad query without the response at hand.

function responseError(body: unknown, statusCode = 503): Error {
  return new errors.ResponseError({ body, statusCode, headers: {}, warnings: null, meta: {} } as unknown as ConstructorParameters<
    typeof errors.ResponseError
  >[0]);
}

describe('failureReason', () => {
  it('an Elasticsearch error: its type and reason, then its cause', () => {
    const err = responseError({
      error: {
        type: 'no_shard_available_action_exception',
        reason: 'No shard available for [get [mp-market-v1][offer-1-2]]',
        caused_by: { type: 'illegal_index_shard_state_exception', reason: 'CurrentState[CLOSED] operation only allowed when not closed' },
      },
      status: 503,
    });
    expect(failureReason(err)).toBe(
      'no_shard_available_action_exception: No shard available for [get [mp-market-v1][offer-1-2]] <- illegal_index_shard_state_exception: CurrentState[CLOSED] operation only allowed when not closed',
    );
  });

  it('all shards failed: the first failed shard’s reason', () => {
    const err = responseError({
      error: {
        type: 'search_phase_execution_exception',
        reason: 'all shards failed',
        failed_shards: [{ shard: 0, reason: { type: 'node_closed_exception', reason: 'node closed {es-2}' } }],
      },
    });
    expect(failureReason(err)).toBe('search_phase_execution_exception: all shards failed <- node_closed_exception: node closed {es-2}');
  });

  it('anything else: its name and message, bounded', () => {
    expect(failureReason(new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9601'))).toBe('ConnectionError: connect ECONNREFUSED 127.0.0.1:9601');
    expect(failureReason(new Error('x'.repeat(2000))).length).toBe(600);
  });
});
