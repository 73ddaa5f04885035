import { loadEnv } from './config/env.js';
import { createPool } from './db/pool.js';
import { createEsClient } from './es/client.js';
import { indexNames } from './es/index-names.js';
import { createLogger } from './lib/logger.js';
import { createApp } from './api/app.js';
import { routeModules } from './api/routes/index.js';
import { createServices } from './services.js';
import { gracefulServer, handleClientErrors } from './api/http-server.js';

const env = loadEnv();
const logger = createLogger(env.LOG_LEVEL, 'api');
const onIdleError = (err: Error) => logger.warn({ err: err.message }, 'idle PostgreSQL client failed');
const limits = { connectionTimeoutMs: env.PG_CONNECT_TIMEOUT_MS, statementTimeoutMs: env.PG_STATEMENT_TIMEOUT_MS };
const pool = createPool(env.DATABASE_URL, env.PG_POOL_SIZE, onIdleError, limits);
const authPool = createPool(env.DATABASE_URL, env.PG_AUTH_POOL_SIZE, onIdleError, limits);
// A locked rate_limits fails the limiter's statement after RATE_LIMIT_STORE_TIMEOUT_MS instead of
// holding the connection; the sweep's larger deletes get a few seconds.
const limitPool = createPool(env.DATABASE_URL, env.PG_LIMIT_POOL_SIZE, onIdleError, {
  connectionTimeoutMs: env.PG_CONNECT_TIMEOUT_MS,
  lockTimeoutMs: env.RATE_LIMIT_STORE_TIMEOUT_MS,
  statementTimeoutMs: 5000,
});
const es = createEsClient(env.ELASTICSEARCH_URL, env.ES_REQUEST_TIMEOUT_MS);
const infra = { env, pool, authPool, limitPool, es, index: indexNames(env.INDEX_PREFIX), logger };
const services = createServices(infra, { processMetrics: true });
const app = createApp({ ...infra, services }, routeModules);

// Requests Node's parser refuses (oversized headers, malformed) are answered in the envelope too.
const server = handleClientErrors(
  app.listen(env.PORT, () => {
    logger.info({ port: env.PORT, index: indexNames(env.INDEX_PREFIX).alias }, `API listening on http://localhost:${env.PORT}`);
  }),
);
const graceful = gracefulServer(server, services.lifecycle);

// SIGTERM (a deployment stopping this instance): drain, as a load balancer expects: /readyz 503 at
// once, requests still served for SHUTDOWN_DRAIN_MS, then the listener closes and requests in
// flight get SHUTDOWN_GRACE_MS to finish. SIGINT (Ctrl-C at a terminal) skips the drain period.
// Once started, a shutdown is not started again: a second signal only says so.
let stopping = false;
const shutdown = async (signal: 'SIGINT' | 'SIGTERM') => {
  if (stopping) {
    logger.info({ signal, inFlight: graceful.inFlight }, 'already shutting down');
    return;
  }
  stopping = true;
  const drainMs = signal === 'SIGTERM' ? env.SHUTDOWN_DRAIN_MS : 0;
  logger.info({ signal, drainMs, graceMs: env.SHUTDOWN_GRACE_MS, inFlight: graceful.inFlight }, 'shutting down: /readyz answers 503, draining');
  // A backstop: whatever hangs after the grace period (a stuck pool end) cannot keep the process.
  setTimeout(
    () => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    },
    drainMs + env.SHUTDOWN_GRACE_MS + 5000,
  ).unref();
  const cut = await graceful.drain({ drainMs, graceMs: env.SHUTDOWN_GRACE_MS });
  if (cut > 0) logger.warn({ cut }, 'requests still in flight after the grace period were cut');
  await services.stop();
  await Promise.allSettled([pool.end(), authPool.end(), limitPool.end(), es.close()]);
  logger.info('API stopped');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
