import { describe, expect, it } from 'vitest';
import { later } from '../../../indexer/small-lane.js';
import { indexerMetrics } from '../../../indexer/metrics.js';
import { createRegistry } from '../../../src/lib/metrics.js';

describe('the small lane position', () => {
  it('is the later of where it read and the checkpoint, xids compared as 64-bit numbers', () => {
    const checkpoint = { xid: '999', id: 5 };
    expect(later(null, checkpoint)).toBe(checkpoint);
    expect(later({ xid: '1000', id: 1 }, checkpoint)).toEqual({ xid: '1000', id: 1 });
    expect(later({ xid: '999', id: 4 }, checkpoint)).toBe(checkpoint);
    expect(later({ xid: '999', id: 6 }, checkpoint)).toEqual({ xid: '999', id: 6 });
    expect(later({ xid: '4294967296', id: 1 }, { xid: '4294967295', id: 9 })).toEqual({ xid: '4294967296', id: 1 });
  });
});

describe('the lane metrics', () => {
  it('expose the small lane always and one series per seller with a burst, gone once drained', async () => {
    const registry = createRegistry({ processMetrics: false });
    const m = indexerMetrics(registry);
    let text = await registry.metrics();
    expect(text).toContain('indexer_lane_pending_changes{lane="small",seller=""} 0');
    expect(text).toContain('indexer_lane_lag_seconds{lane="small",seller=""} 0');

    m.lanes = {
      total: { pending: 5004, lagSeconds: 41 },
      bursts: [{ sellerId: 17, pending: 5000, lagSeconds: 41 }],
      small: { pending: 4, lagSeconds: 0.5 },
    };
    text = await registry.metrics();
    expect(text).toContain('indexer_lane_pending_changes{lane="burst",seller="17"} 5000');
    expect(text).toContain('indexer_lane_lag_seconds{lane="burst",seller="17"} 41');
    expect(text).toContain('indexer_lane_pending_changes{lane="small",seller=""} 4');

    m.lanes = { total: { pending: 0, lagSeconds: 0 }, bursts: [], small: { pending: 0, lagSeconds: 0 } };
    expect(await registry.metrics()).not.toContain('lane="burst"');
  });

  it('count the seconds of each step of the batches written', async () => {
    const registry = createRegistry({ processMetrics: false });
    const m = indexerMetrics(registry);
    const times = {
      feed: 10,
      fanOut: 0,
      facts: 2000,
      build: 0,
      serialise: 0,
      bulk: 1500,
      bulkCards: 0,
      checkpoint: 5,
      smallLane: 0,
      quarantine: 250,
      notify: 0,
    };
    m.batchWritten({ changes: 1, docs: 2, committedAt: [Date.now()], times }, Date.now());
    m.batchWritten({ changes: 1, docs: 2, committedAt: [Date.now()], times }, Date.now());
    const text = await registry.metrics();
    expect(text).toContain('indexer_batch_step_seconds_total{step="facts"} 4');
    expect(text).toContain('indexer_batch_step_seconds_total{step="bulk"} 3');
    expect(text).toContain('indexer_batch_step_seconds_total{step="quarantine"} 0.5');
  });
});
