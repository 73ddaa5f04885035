import { renderPrometheus } from '../src/lib/prometheus.js';

/** Counters the indexer exposes (Prometheus text at /metrics, and in its batch logs). */
export interface IndexerMetrics {
  batches: number;
  changes: number;
  docs: number;
  errors: number;
  lagSeconds: number;
  pending: number;
  /** Documents per second over the last batch. */
  lastDocsPerSecond: number;
  lastBatchAt: number | null;
}

export function emptyMetrics(): IndexerMetrics {
  return { batches: 0, changes: 0, docs: 0, errors: 0, lagSeconds: 0, pending: 0, lastDocsPerSecond: 0, lastBatchAt: null };
}

export function prometheusText(m: IndexerMetrics): string {
  return renderPrometheus([
    { name: 'indexer_batches_total', type: 'counter', help: 'Batches written to Elasticsearch', value: m.batches },
    { name: 'indexer_changes_total', type: 'counter', help: 'Change feed rows consumed', value: m.changes },
    { name: 'indexer_docs_total', type: 'counter', help: 'Documents written or deleted', value: m.docs },
    { name: 'indexer_errors_total', type: 'counter', help: 'Failed batch attempts (retried)', value: m.errors },
    { name: 'indexer_lag_seconds', type: 'gauge', help: 'Age of the oldest change not yet indexed', value: m.lagSeconds },
    { name: 'indexer_pending_changes', type: 'gauge', help: 'Change feed rows not yet indexed', value: m.pending },
    { name: 'indexer_docs_per_second', type: 'gauge', help: 'Throughput of the last batch', value: m.lastDocsPerSecond },
  ]);
}
