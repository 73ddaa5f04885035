import cliProgress from 'cli-progress';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexLayout, indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { createRegistry, serveMetrics } from '../src/lib/metrics.js';
import { rebuildMetrics } from '../indexer/metrics.js';
import { rebuild, type RebuildProgress } from '../indexer/rebuild.js';

// npm run reindex: a fresh index from PostgreSQL behind the alias, swapped atomically. Safe to run
// beside a live indexer and live writes. A progress bar on a terminal, plain lines otherwise.
// SIGINT or SIGTERM stops it before the swap and deletes the index it was building (the alias
// keeps the one it had); its progress and process metrics are on REINDEX_METRICS_PORT meanwhile.

const env = loadEnv();
const logger = createLogger(env.LOG_LEVEL, 'reindex');
const pool = createPool(env.DATABASE_URL, 4);
const es = createEsClient(env.ELASTICSEARCH_URL, 60_000);
const index = indexNames(env.INDEX_PREFIX, indexLayout(env));
const registry = createRegistry({ processMetrics: true });
const reportProgress = rebuildMetrics(registry);
const metricsServer = serveMetrics(registry, env.REINDEX_METRICS_PORT, logger, env.METRICS_HOST);
const stop = new AbortController();
let building: string | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stop.signal.aborted) return;
    console.error(`\nreindex: ${signal}: stopping${building ? ` and deleting ${building}` : ''}`);
    stop.abort(new Error(`stopped by ${signal}`));
  });
}

// Phases without a document count say what they wait for instead.
const PHASE_LINES: Partial<Record<RebuildProgress['phase'], string>> = {
  allocation: `reindex allocation: waiting until every primary and replica (${index.layout.shards} shard(s), ${index.layout.replicas} replica(s)) is allocated (green) before the swap`,
  'warm-up': 'reindex warm-up: asking the new index the searches storefronts ask most (the landing grid, then each single-filter grid) before the swap',
};
const started = Date.now();
let onProgress: (p: RebuildProgress) => void;
let finish = () => {};
if (process.stderr.isTTY) {
  const bar = new cliProgress.SingleBar(
    { format: 'reindex {phase} |{bar}| {value}/{total} docs | {rate} docs/s | ETA {eta_formatted}', stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let begun = false;
  onProgress = (p) => {
    const rate = Math.round(p.done / Math.max((Date.now() - started) / 1000, 0.001));
    if (!begun && p.phase === 'snapshot') {
      bar.start(p.total, 0, { phase: p.phase, rate });
      begun = true;
    }
    if (p.phase === 'snapshot') bar.update(p.done, { phase: p.phase, rate });
    else bar.update({ phase: p.phase });
    const line = PHASE_LINES[p.phase];
    if (line) console.error(`\n${line}`);
  };
  finish = () => bar.stop();
} else {
  let last = 0;
  onProgress = (p) => {
    const now = Date.now();
    if (p.phase === 'snapshot' && now - last < 2000 && p.done < p.total) return;
    const line = PHASE_LINES[p.phase];
    if (line) return console.error(line);
    last = now;
    const secs = (now - started) / 1000;
    const rate = Math.round(p.done / Math.max(secs, 0.001));
    const eta = p.phase === 'snapshot' && rate > 0 ? Math.round((p.total - p.done) / rate) : 0;
    console.error(`reindex ${p.phase}: ${p.done}/${p.total} docs, ${rate} docs/s, ETA ${eta}s`);
  };
}

try {
  const result = await rebuild({
    pool,
    es,
    index,
    logger,
    signal: stop.signal,
    onIndex: (name) => (building = name),
    onProgress: (p) => {
      reportProgress(p);
      onProgress(p);
    },
  });
  finish();
  console.log(
    `reindex done: ${result.docs} docs into ${result.index} in ${(result.totalMs / 1000).toFixed(1)}s ` +
      `(${Math.round(result.docs / (result.snapshotMs / 1000))} docs/s snapshot load), ${result.replayedChanges} changes replayed; alias ${index.alias} swapped to it once green (${index.layout.shards} shard(s), ${index.layout.replicas} replica(s)); ` +
      `${result.quarantined} document(s) quarantined`,
  );
  // Refused documents do not fail the rebuild: they are named here and kept in index_quarantine
  // until their rows change (docs/operations.md, "IndexerDocumentsQuarantined").
  if (result.quarantined > 0) {
    console.log(`reindex quarantined ${result.quarantined} document(s) Elasticsearch refused (SELECT * FROM index_quarantine lists them all):`);
    for (const r of result.quarantinedSample) console.log(`  ${r.id}: ${r.reason.slice(0, 300)}`);
    if (result.quarantined > result.quarantinedSample.length) console.log(`  ... and ${result.quarantined - result.quarantinedSample.length} more`);
  }
} catch (err) {
  finish();
  const left = building !== null && (await es.indices.exists({ index: building }).catch(() => true));
  const what =
    building === null
      ? ''
      : left
        ? `; ${building} is left behind (npm run indices -- --prune deletes it)`
        : `; deleted ${building}, the index it was building`;
  console.error(`reindex ${stop.signal.aborted ? 'stopped' : 'failed'}: ${(err as Error).message}${what}`);
  process.exitCode = stop.signal.aborted ? 130 : 1;
} finally {
  metricsServer.close();
  await pool.end();
  await es.close();
}
