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
  const lines = [
    ['indexer_batches_total', 'counter', 'Batches written to Elasticsearch', m.batches],
    ['indexer_changes_total', 'counter', 'Change feed rows consumed', m.changes],
    ['indexer_docs_total', 'counter', 'Documents written or deleted', m.docs],
    ['indexer_errors_total', 'counter', 'Failed batch attempts (retried)', m.errors],
    ['indexer_lag_seconds', 'gauge', 'Age of the oldest change not yet indexed', m.lagSeconds],
    ['indexer_pending_changes', 'gauge', 'Change feed rows not yet indexed', m.pending],
    ['indexer_docs_per_second', 'gauge', 'Throughput of the last batch', m.lastDocsPerSecond],
  ] as const;
  return lines.map(([name, type, help, value]) => `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}`).join('\n') + '\n';
}
