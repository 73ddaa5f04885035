import { describe, expect, it } from 'vitest';
import { counterFrom, createRegistry, gaugeFrom, labelledCounterFrom, stateGaugeFrom } from '../../../src/lib/metrics.js';

// One way to render metrics in every process: a prom-client registry, with the process and Node
// metrics where asked, and counters and gauges read from the process's own state when scraped.

describe('metrics registry', () => {
  it('reads counters, labelled counters, gauges and states when scraped, in Prometheus text', async () => {
    const registry = createRegistry({ processMetrics: false });
    const state = { done: 2, outcomes: { ok: 3, failed: 1 }, depth: 7, mode: 'open' as 'open' | 'closed' };
    counterFrom(registry, 'jobs_done_total', 'Jobs done', () => state.done);
    labelledCounterFrom(registry, 'jobs_total', 'Jobs by outcome', 'outcome', ['ok', 'failed'] as const, () => state.outcomes);
    gaugeFrom(registry, 'queue_depth', 'Jobs waiting', () => state.depth);
    stateGaugeFrom(registry, 'breaker_state', 'State', 'state', ['open', 'closed'] as const, () => state.mode);
    let text = await registry.metrics();
    expect(text).toContain('# TYPE jobs_done_total counter\njobs_done_total 2\n');
    expect(text).toContain('jobs_total{outcome="ok"} 3\njobs_total{outcome="failed"} 1\n');
    expect(text).toContain('# TYPE queue_depth gauge\nqueue_depth 7\n');
    expect(text).toContain('breaker_state{state="open"} 1\nbreaker_state{state="closed"} 0\n');
    state.done = 5;
    state.depth = 0;
    state.mode = 'closed';
    text = await registry.metrics();
    expect(text).toContain('jobs_done_total 5\n');
    expect(text).toContain('queue_depth 0\n');
    expect(text).toContain('breaker_state{state="open"} 0\nbreaker_state{state="closed"} 1\n');
    expect(text).not.toContain('process_cpu_seconds_total');
  });

  it('with process metrics: CPU, memory, event-loop lag and GC, as prom-client names them', async () => {
    const text = await createRegistry({ processMetrics: true }).metrics();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds',
    ]) {
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
  });

  it('registries are separate: two in one process never clash', async () => {
    const a = createRegistry({ processMetrics: true });
    const b = createRegistry({ processMetrics: true });
    gaugeFrom(a, 'same_name', 'in a', () => 1);
    gaugeFrom(b, 'same_name', 'in b', () => 2);
    expect(await a.metrics()).toContain('same_name 1\n');
    expect(await b.metrics()).toContain('same_name 2\n');
  });
});
