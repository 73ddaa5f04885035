import { Gauge, Histogram, type Registry } from 'prom-client';
import { counterFrom, createRegistry, gaugeFrom, labelledCounterFrom, stateGaugeFrom } from '../src/lib/metrics.js';
import type { FeedBacklog } from '../src/db/change-feed.js';
import type { RebuildProgress } from './rebuild.js';
import { STEPS, stepTimes, type StepTimes } from './step-times.js';

// What the indexer counts (plain numbers: its logs and tests read them) and observes (histograms),
// exposed through the process's prom-client registry on INDEXER_METRICS_PORT.

export interface IndexerMetrics {
  batches: number;
  changes: number;
  docs: number;
  /** Failed batch attempts (retried). */
  errors: number;
  /** Failed batch attempts whose Elasticsearch side failed (bulk item errors, requests refused or timed out). */
  bulkFailures: number;
  /** Age of the oldest change after the checkpoint, as the last backlog read saw it. */
  lagSeconds: number;
  pending: number;
  /** Documents Elasticsearch refused for a reason of their own, quarantined instead of retried. */
  quarantined: number;
  /** Rows of the quarantine table, as last read. */
  quarantineSize: number;
  /** The backlog per lane, as the last backlog read saw it (null before the first). */
  lanes: FeedBacklog | null;
  /** The small lane's state (its count of changes written ahead of the checkpoint). */
  smallLane: { changes: number } | null;
  /** Milliseconds spent per step of the batches written, summed. */
  steps: StepTimes;
  /** Documents per second over the last batch. */
  lastDocsPerSecond: number;
  lastBatchAt: number | null;
  /** A batch written and checkpointed: its sizes, and when each of its changes was committed (ms since the epoch). */
  batchWritten(batch: { changes: number; docs: number; committedAt: readonly number[]; times?: StepTimes }, now: number): void;
  /** Progress of a rebuild this process runs (the indexer's first build). */
  rebuildProgress(p: RebuildProgress): void;
}

/** Seconds from a change's commit to its documents written; the alert reads 5 s. */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600];
/** Changes per batch (at most FEED_BATCH, 5,000). */
const CHANGE_BUCKETS = [1, 10, 50, 100, 500, 1000, 2500, 5000];
/** Documents written per batch (a store-wide change fans out to thousands). */
const DOC_BUCKETS = [1, 10, 100, 500, 1000, 5000, 10_000, 50_000, 100_000];

/** The phases a rebuild reports, and `idle` before any. */
const REBUILD_PHASES = ['idle', 'snapshot', 'catch-up', 'allocation', 'swap', 'done'] as const;

/**
 * A rebuild's progress as gauges (phase, documents written, documents to write), for whichever
 * process runs it: the indexer's first build, `npm run reindex` (REINDEX_METRICS_PORT).
 */
export function rebuildMetrics(registry: Registry): (p: RebuildProgress) => void {
  const now = { phase: 'idle' as string, done: 0, total: 0, quarantined: 0 };
  stateGaugeFrom(
    registry,
    'indexer_rebuild_phase',
    'Phase of the rebuild this process runs (idle: none yet)',
    'phase',
    REBUILD_PHASES,
    () => now.phase as (typeof REBUILD_PHASES)[number],
  );
  gaugeFrom(registry, 'indexer_rebuild_docs_done', 'Documents the running rebuild has written', () => now.done);
  gaugeFrom(
    registry,
    'indexer_rebuild_docs_total',
    'Documents the running rebuild will write (an upper bound, known once its snapshot starts)',
    () => now.total,
  );
  gaugeFrom(
    registry,
    'indexer_rebuild_quarantined_documents',
    'Documents the running (or last) rebuild quarantined: Elasticsearch refused them for a reason of their own',
    () => now.quarantined,
  );
  return (p) => {
    now.phase = p.phase;
    if (p.quarantined !== undefined) now.quarantined = p.quarantined;
    if (p.phase === 'snapshot' || p.phase === 'done') {
      now.done = p.done;
      now.total = p.total;
    }
  };
}

/** The indexer's metrics in `registry` (a registry of their own by default: in-process indexers of tests). */
export function indexerMetrics(registry: Registry = createRegistry({ processMetrics: false })): IndexerMetrics {
  const lag = new Histogram({
    name: 'indexer_commit_to_indexed_seconds',
    help: 'Seconds from a change committed in PostgreSQL (its transaction time) to its documents written and checkpointed',
    buckets: LAG_BUCKETS,
    registers: [registry],
  });
  const batchChanges = new Histogram({
    name: 'indexer_batch_changes',
    help: 'Change feed rows per batch',
    buckets: CHANGE_BUCKETS,
    registers: [registry],
  });
  const batchDocs = new Histogram({
    name: 'indexer_batch_docs',
    help: 'Documents written or deleted per batch',
    buckets: DOC_BUCKETS,
    registers: [registry],
  });
  const m: IndexerMetrics = {
    batches: 0,
    changes: 0,
    docs: 0,
    errors: 0,
    bulkFailures: 0,
    lagSeconds: 0,
    pending: 0,
    quarantined: 0,
    quarantineSize: 0,
    lanes: null,
    smallLane: null,
    steps: stepTimes(),
    lastDocsPerSecond: 0,
    lastBatchAt: null,
    batchWritten(batch, now) {
      for (const step of STEPS) m.steps[step] += batch.times?.[step] ?? 0;
      batchChanges.observe(batch.changes);
      batchDocs.observe(batch.docs);
      for (const at of batch.committedAt) lag.observe(Math.max(0, (now - at) / 1000));
    },
    rebuildProgress: rebuildMetrics(registry),
  };
  counterFrom(registry, 'indexer_batches_total', 'Batches written to Elasticsearch', () => m.batches);
  counterFrom(registry, 'indexer_changes_total', 'Change feed rows consumed', () => m.changes);
  counterFrom(registry, 'indexer_docs_total', 'Documents written or deleted', () => m.docs);
  counterFrom(registry, 'indexer_errors_total', 'Failed batch attempts (retried)', () => m.errors);
  counterFrom(
    registry,
    'indexer_bulk_failures_total',
    'Failed batch attempts whose Elasticsearch writes failed (item errors, requests refused or timed out)',
    () => m.bulkFailures,
  );
  gaugeFrom(registry, 'indexer_lag_seconds', 'Age of the oldest change not yet indexed', () => m.lagSeconds);
  gaugeFrom(registry, 'indexer_pending_changes', 'Change feed rows not yet indexed (the feed backlog)', () => m.pending);
  counterFrom(
    registry,
    'indexer_quarantined_documents_total',
    'Documents Elasticsearch refused for a reason of their own (mapping, parse, size): quarantined, not retried',
    () => m.quarantined,
  );
  gaugeFrom(registry, 'indexer_quarantined_documents', 'Documents in quarantine now (the index_quarantine table)', () => m.quarantineSize);
  gaugeFrom(registry, 'indexer_docs_per_second', 'Throughput of the last batch', () => m.lastDocsPerSecond);
  counterFrom(
    registry,
    'indexer_small_lane_changes_total',
    'Changes the small lane wrote ahead of the checkpoint, beside a burst',
    () => m.smallLane?.changes ?? 0,
  );
  labelledCounterFrom(
    registry,
    'indexer_batch_step_seconds_total',
    'Seconds spent per step of the batches written (reads of the next chunk overlap the bulk request in flight)',
    'step',
    STEPS,
    () => Object.fromEntries(STEPS.map((s) => [s, m.steps[s] / 1000])) as Record<(typeof STEPS)[number], number>,
  );
  laneGauge(
    registry,
    'indexer_lane_pending_changes',
    'Changes waiting per lane, read from the feed on every backlog poll',
    (l) => l.pending,
    () => m.lanes,
  );
  laneGauge(
    registry,
    'indexer_lane_lag_seconds',
    'Age of the oldest change waiting per lane, read from the feed on every backlog poll (grows during a stall, even while batches fail)',
    (l) => l.lagSeconds,
    () => m.lanes,
  );
  return m;
}

/**
 * A gauge per lane: `lane="small"` (everyone's changes but the bursts') and `lane="burst"` with the
 * `seller` behind it, one series per burst (at most a few; a seller's series goes when its burst is
 * drained). The small lane is always there, at 0 when nothing waits.
 */
function laneGauge(
  registry: Registry,
  name: string,
  help: string,
  value: (l: { pending: number; lagSeconds: number }) => number,
  read: () => FeedBacklog | null,
): void {
  new Gauge({
    name,
    help,
    labelNames: ['lane', 'seller'],
    registers: [registry],
    collect() {
      this.reset();
      const b = read();
      this.set({ lane: 'small', seller: '' }, b ? value(b.small) : 0);
      for (const burst of b?.bursts ?? []) this.set({ lane: 'burst', seller: String(burst.sellerId) }, value(burst));
    },
  });
}
