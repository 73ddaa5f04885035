import { loadEnv } from './config/env.js';
import { createPool } from './db/pool.js';
import { createEsClient } from './es/client.js';
import { indexNames } from './es/index-names.js';
import { createLogger } from './lib/logger.js';
import { createApp } from './api/app.js';
import { routeModules } from './api/routes/index.js';
import { createServices } from './services.js';
import { handleClientErrors } from './api/http-server.js';

const env = loadEnv();
const logger = createLogger(env.LOG_LEVEL, 'api');
const onIdleError = (err: Error) => logger.warn({ err: err.message }, 'idle PostgreSQL client failed');
const limits = { connectionTimeoutMs: env.PG_CONNECT_TIMEOUT_MS, statementTimeoutMs: env.PG_STATEMENT_TIMEOUT_MS };
const pool = createPool(env.DATABASE_URL, env.PG_POOL_SIZE, onIdleError, limits);
const authPool = createPool(env.DATABASE_URL, env.PG_AUTH_POOL_SIZE, onIdleError, limits);
const es = createEsClient(env.ELASTICSEARCH_URL, env.ES_REQUEST_TIMEOUT_MS);
const infra = { env, pool, authPool, es, index: indexNames(env.INDEX_PREFIX), logger };
const services = createServices(infra, { processMetrics: true });
const app = createApp({ ...infra, services }, routeModules);

// Requests Node's parser refuses (oversized headers, malformed) are answered in the envelope too.
const server = handleClientErrors(
  app.listen(env.PORT, () => {
    logger.info({ port: env.PORT, index: indexNames(env.INDEX_PREFIX).alias }, `API listening on http://localhost:${env.PORT}`);
  }),
);

const shutdown = (signal: string) => {
  logger.info({ signal }, 'shutting down');
  server.close(() => {
    void services
      .stop()
      .then(() => Promise.allSettled([pool.end(), authPool.end(), es.close()]))
      .then(() => process.exit(0));
  });
  setTimeout(() => process.exit(0), 5000).unref();
};
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
