import http from 'node:http';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { outboxGauges } from '../src/db/webhook-deliveries.js';
import { endpointGauges } from '../src/db/webhook-endpoints.js';
import { createLogger } from '../src/lib/logger.js';
import { dispatcherConfig } from './config.js';
import { startDispatcher } from './loop.js';
import { prometheusText } from './metrics.js';

// npm run webhooks: the long-lived webhook dispatcher (DECISIONS.md "Events").
const env = loadEnv();
const logger = createLogger(env.LOG_LEVEL, 'webhooks');
const pool = createPool(env.DATABASE_URL, 4, (err) => logger.warn({ err: err.message }, 'idle PostgreSQL client failed'));
const config = dispatcherConfig(env);
const dispatcher = await startDispatcher({ pool, databaseUrl: env.DATABASE_URL, logger, config });

const server = http
  .createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.statusCode = 404;
      res.end();
      return;
    }
    // The outbox gauges come from PostgreSQL; without it the process's own counters still answer.
    Promise.all([outboxGauges(pool).catch(() => null), endpointGauges(pool, config.breakerFailures).catch(() => null)]).then(([g, e]) => {
      res.setHeader('Content-Type', 'text/plain; version=0.0.4');
      res.end(prometheusText(dispatcher.metrics, g, e));
    });
  })
  .listen(env.WEBHOOK_METRICS_PORT, '127.0.0.1', () => {
    const addr = server.address();
    logger.info({ port: typeof addr === 'object' && addr ? addr.port : env.WEBHOOK_METRICS_PORT }, 'webhook metrics on /metrics');
  })
  .on('error', (err) => logger.warn({ err: err.message }, 'metrics endpoint not started'));

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) {
    logger.warn({ signal }, 'second signal: exiting without waiting for in-flight attempts');
    process.exit(1);
  }
  stopping = true;
  logger.info({ signal, inFlight: dispatcher.metrics.inFlight }, 'webhook dispatcher stopping; finishing in-flight attempts');
  server.close();
  await dispatcher.stop();
  await pool.end();
  logger.info('webhook dispatcher stopped');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
