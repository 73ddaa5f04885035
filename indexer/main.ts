import http from 'node:http';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexLayout, indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { startLiveIndexer } from './live.js';
import { prometheusText } from './metrics.js';

const env = loadEnv();
const logger = createLogger(env.LOG_LEVEL, 'indexer');
const pool = createPool(env.DATABASE_URL, 6, (err) => logger.warn({ err: err.message }, 'idle PostgreSQL client failed'));
const es = createEsClient(env.ELASTICSEARCH_URL, 30_000);
const index = indexNames(env.INDEX_PREFIX, indexLayout(env));
const indexer = await startLiveIndexer({ pool, es, index, logger, databaseUrl: env.DATABASE_URL });

// Lag and throughput for metrics scrapers.
const metricsPort = Number(process.env.INDEXER_METRICS_PORT ?? 9464);
const server = http
  .createServer((req, res) => {
    if (req.url === '/metrics') {
      res.setHeader('Content-Type', 'text/plain; version=0.0.4');
      res.end(prometheusText(indexer.metrics));
    } else {
      res.statusCode = 404;
      res.end();
    }
  })
  .listen(metricsPort, '127.0.0.1', () => logger.info({ port: metricsPort }, 'indexer metrics on /metrics'))
  .on('error', (err) => logger.warn({ err: err.message }, 'metrics endpoint not started'));

const shutdown = async (signal: string) => {
  logger.info({ signal }, 'indexer stopping');
  server.close();
  await indexer.stop();
  await pool.end();
  await es.close();
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
