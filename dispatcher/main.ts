import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { outboxGauges } from '../src/db/webhook-deliveries.js';
import { endpointGauges } from '../src/db/webhook-endpoints.js';
import { createLogger } from '../src/lib/logger.js';
import { createRegistry, serveMetrics } from '../src/lib/metrics.js';
import { dispatcherConfig } from './config.js';
import { startDispatcher } from './loop.js';
import { registerDispatcherMetrics } from './metrics.js';

// npm run webhooks: the long-lived webhook dispatcher (DECISIONS.md "Events").
const env = loadEnv();
const logger = createLogger(env.LOG_LEVEL, 'webhooks');
const pool = createPool(env.DATABASE_URL, 4, (err) => logger.warn({ err: err.message }, 'idle PostgreSQL client failed'));
const config = dispatcherConfig(env);
const dispatcher = await startDispatcher({ pool, databaseUrl: env.DATABASE_URL, logger, config });

const registry = createRegistry({ processMetrics: true });
// The outbox and endpoint gauges come from PostgreSQL when scraped; without it the process's own counters still answer.
registerDispatcherMetrics(registry, dispatcher.metrics, {
  outbox: () => outboxGauges(pool),
  endpoints: () => endpointGauges(pool, config.breakerFailures),
});
const server = serveMetrics(registry, env.WEBHOOK_METRICS_PORT, logger, env.METRICS_HOST);

// SIGTERM or SIGINT: attempts in flight finish and are recorded, then the process exits. One
// shutdown only: a second signal while stopping says so and changes nothing.
let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) {
    logger.info({ signal, inFlight: dispatcher.metrics.inFlight }, 'webhook dispatcher already stopping; finishing in-flight attempts');
    return;
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
