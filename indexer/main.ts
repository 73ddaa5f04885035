import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexLayout, indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { createRegistry, serveMetrics } from '../src/lib/metrics.js';
import { startLiveIndexer } from './live.js';
import { indexerMetrics } from './metrics.js';

const env = loadEnv();
const logger = createLogger(env.LOG_LEVEL, 'indexer');
const pool = createPool(env.DATABASE_URL, 6, (err) => logger.warn({ err: err.message }, 'idle PostgreSQL client failed'));
const es = createEsClient(env.ELASTICSEARCH_URL, 30_000);
const registry = createRegistry({ processMetrics: true });
const metrics = indexerMetrics(registry);
const indexer = await startLiveIndexer({
  pool,
  es,
  index: indexNames(env.INDEX_PREFIX, indexLayout(env)),
  logger,
  databaseUrl: env.DATABASE_URL,
  pollMs: env.INDEXER_POLL_MS,
  gatherMs: env.INDEXER_GATHER_MS,
  maxBatch: env.INDEXER_MAX_BATCH,
  burstMin: env.INDEXER_BURST_MIN,
  metrics,
});
const server = serveMetrics(registry, env.INDEXER_METRICS_PORT, logger, env.METRICS_HOST);

// SIGTERM or SIGINT: the batch in progress is written and checkpointed (a first build in
// progress is stopped and its index deleted), then the connections close and the process exits.
// One shutdown only: a second signal while stopping says so and changes nothing.
let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) {
    logger.info({ signal }, 'indexer already stopping; finishing the batch in progress');
    return;
  }
  stopping = true;
  logger.info({ signal }, 'indexer stopping: finishing the batch in progress');
  server.close();
  await indexer.stop();
  await Promise.allSettled([pool.end(), es.close()]);
  logger.info('indexer stopped');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
