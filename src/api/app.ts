import express from 'express';
import { pinoHttp } from 'pino-http';
import { stdSerializers } from 'pino';
import { randomUUID } from 'node:crypto';
import type { AppDeps } from './deps.js';
import { apiVersion } from './middleware/api-version.js';
import { errorHandler, notFound, requireJsonBody } from './middleware/errors.js';

/** Route groups register themselves here; each is a function of the shared deps. */
export type RouteModule = (app: express.Express, deps: AppDeps) => void;

export function createApp(deps: AppDeps, modules: RouteModule[]): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.set('trust proxy', 'loopback');
  app.use(
    pinoHttp({
      logger: deps.logger,
      genReqId: (req, res) => {
        const id = (req.headers['x-request-id'] as string | undefined) ?? randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
      // The serializers get the raw request and response: wrapped (the default), every request
      // first gets a full copy (headers, query, params, address) just for these three fields.
      wrapSerializers: false,
      serializers: {
        req: (req: { id: string; method: string; url: string; originalUrl?: string }) => ({
          id: req.id,
          method: req.method,
          url: req.originalUrl || req.url,
        }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        err: stdSerializers.err,
      },
    }),
  );
  app.use(apiVersion);
  app.use(requireJsonBody);
  app.use(express.json({ limit: '5mb', type: () => true }));
  for (const register of modules) register(app, deps);
  app.use(notFound);
  app.use(errorHandler);
  return app;
}
