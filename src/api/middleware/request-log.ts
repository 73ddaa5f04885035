import { randomUUID } from 'node:crypto';
import type { Express, Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../lib/logger.js';

declare module 'http' {
  interface IncomingMessage {
    /** The request id: the caller's X-Request-Id, else a new UUID; echoed as X-Request-Id. */
    id: string;
    /** A logger whose lines carry this request (`req: { id, method, url }`); made on first use. */
    log: Logger;
  }
}

// 401, 403 and 429 say someone is being refused: bad keys, a key used where it may not go, a
// client over its limits (a probe, a brute force, a misconfigured platform), what an operator
// watches for. Any other 4xx is a client's own mistake answered as designed (a bad parameter, an
// unknown id): info like every other request line, or one scan fills the warnings.
const REFUSALS = new Set([401, 403, 429]);

/** Level of the request's line: 5xx (or a response error) error, 401/403/429 warn, else info. */
export function levelOf(statusCode: number, err?: unknown): 'error' | 'warn' | 'info' {
  return err || statusCode >= 500 ? 'error' : REFUSALS.has(statusCode) ? 'warn' : 'info';
}

/** The three request fields of every request log line. */
function reqFields(req: Request): { id: string; method: string; url: string } {
  return { id: req.id, method: req.method, url: req.originalUrl || req.url };
}

/**
 * One log line per request, when its response is done, in the shape pino-http wrote before
 * (this replaces it: same fields, order, messages and levels, without a child logger, its
 * serialized bindings and six listener calls per request):
 *   {"level":30,...,"req":{"id","method","url"},"res":{"statusCode"},"responseTime":ms,"msg":"request completed"}
 * and for a 5xx (or an error on the response) `"err"` after `res` and "request errored".
 * The request id is the caller's X-Request-Id when given and safe (<= 128 characters of
 * [A-Za-z0-9._:/=+-]), else a new UUID, and is sent back as
 * X-Request-Id. `req.log` (for lines about the request from inside a handler) is a child logger
 * with the same `req` fields, created only when something reads it.
 */
export function installRequestLog(app: Express, logger: Logger): void {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request): Logger {
      const child = logger.child({ req: reqFields(this) });
      Object.defineProperty(this, 'log', { value: child, configurable: true, writable: true });
      return child;
    },
  });
  app.use(requestLog(logger));
}

// A caller's id is echoed and logged, so it is only taken when it is short and made of
// characters that are safe in a header, a log line and a URL; anything else gets a fresh UUID.
const REQUEST_ID = /^[A-Za-z0-9._:/=+-]{1,128}$/;

function safeRequestId(v: string | string[] | undefined): string | undefined {
  return typeof v === 'string' && REQUEST_ID.test(v) ? v : undefined;
}

function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const start = Date.now();
    const id = safeRequestId(req.headers['x-request-id']) ?? randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    let logged = false;
    // 'finish' when the response is sent; 'close' also when the client went away first; 'error'
    // is listened to for the whole response, so a late stream error is logged, never thrown.
    const done = (err?: unknown) => {
      if (logged) return;
      logged = true;
      write(logger, req, res, Date.now() - start, err);
    };
    res.on('finish', done);
    res.on('close', done);
    res.on('error', done);
    next();
  };
}

function write(logger: Logger, req: Request, res: Response, responseTime: number, err: unknown): void {
  const status = res.statusCode;
  const level = levelOf(status, err);
  if (!logger.isLevelEnabled(level)) return;
  if (err || status >= 500) {
    logger[level](
      { req: reqFields(req), res: { statusCode: status }, err: err ?? new Error(`failed with status code ${status}`), responseTime },
      'request errored',
    );
    return;
  }
  logger[level]({ req: reqFields(req), res: { statusCode: status }, responseTime }, 'request completed');
}
