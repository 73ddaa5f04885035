import express from 'express';
import type { AppDeps } from './deps.js';
import { apiVersion } from './middleware/api-version.js';
import { errorHandler, notFound, requireJsonBody } from './middleware/errors.js';
import { installRequestLog } from './middleware/request-log.js';
import { requestMetrics } from './middleware/request-metrics.js';
import { jsonBody } from './middleware/json-body.js';

/** Route groups register themselves here; each is a function of the shared deps. */
export type RouteModule = (app: express.Express, deps: AppDeps) => void;

export function createApp(deps: AppDeps, modules: RouteModule[]): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', trustProxy(deps.env.TRUST_PROXY));
  installRequestLog(app, deps.logger);
  app.use(requestMetrics(app, deps.services.metrics.http));
  app.use(apiVersion);
  app.use(requireJsonBody);
  app.use(jsonBody());
  for (const register of modules) register(app, deps);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}

/**
 * TRUST_PROXY as Express takes it: `true` (trust every hop: only behind a proxy that overwrites
 * X-Forwarded-For), `false` (the socket address is the client), a hop count, or addresses,
 * subnets and names (`loopback`, `uniquelocal`, comma-separated). Behind a load balancer that is
 * not trusted, every client shares the balancer's address and so one rate-limit bucket.
 */
export function trustProxy(value: string): boolean | number | string {
  if (value === 'true' || value === 'false') return value === 'true';
  return /^\d+$/.test(value) ? Number(value) : value;
}
