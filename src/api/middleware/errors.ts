import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError } from '../../contract/errors.js';
import { ApiError, errorBody } from '../envelope.js';
import { isDatabaseUnavailable } from '../../db/pool.js';

export const notFound: RequestHandler = (req, res) => {
  res.status(404).json(errorBody('NOT_FOUND', `No route for ${req.method} ${req.path}`));
};

/** The one place a domain error becomes an HTTP status and envelope code. */
export function apiErrorOf(err: DomainError): ApiError {
  switch (err.kind) {
    case 'invalid-cursor':
      return new ApiError(400, 'INVALID_REQUEST', err.message, err.issues);
    case 'search-unavailable':
      return new ApiError(503, 'SERVICE_UNAVAILABLE', err.message, err.issues, { 'Retry-After': String(err.retryAfterSeconds ?? 5) });
    case 'not-found':
      return new ApiError(404, 'NOT_FOUND', err.message, err.issues);
    case 'order-not-found':
      return new ApiError(404, 'ORDER_NOT_FOUND', err.message, err.issues);
    case 'invalid-transition':
      return new ApiError(422, 'INVALID_TRANSITION', err.message, err.issues);
    case 'invalid-request':
      return new ApiError(400, 'INVALID_REQUEST', err.message, err.issues);
    case 'dispatch-evidence-conflict':
      return new ApiError(422, 'INVALID_REQUEST', err.message, err.issues);
  }
}

/** Last handler: client errors keep their status and code; anything else is logged and is a 500. */
export const errorHandler: ErrorRequestHandler = (thrown, req, res, _next) => {
  const err: unknown = thrown instanceof DomainError ? apiErrorOf(thrown) : thrown;
  if (err instanceof ApiError) {
    for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
    res.status(err.status).json(errorBody(err.code, err.message, err.details));
    return;
  }
  // body-parser failures: malformed JSON, oversized body, bad charset.
  const status = (err as { status?: number; statusCode?: number }).status ?? (err as { statusCode?: number }).statusCode;
  const type = (err as { type?: string }).type;
  if (status && status >= 400 && status < 500) {
    const message =
      type === 'entity.parse.failed' ? 'Malformed JSON body' : type === 'entity.too.large' ? 'Request body too large' : (err as Error).message;
    res.status(status === 413 ? 413 : 400).json(errorBody('INVALID_REQUEST', message));
    return;
  }
  // Backstop: a date/time PostgreSQL refuses came from the request (the edge checks should have
  // caught it); it is the client's 400, never a 500.
  const pgCode = (err as { code?: unknown }).code;
  if (pgCode === '22007' || pgCode === '22008') {
    req.log?.warn({ err }, 'date/time refused by PostgreSQL');
    res.status(400).json(errorBody('INVALID_REQUEST', 'A date-time in the request is out of range'));
    return;
  }
  if (isDatabaseUnavailable(err)) {
    req.log?.error({ err }, 'PostgreSQL unavailable');
    res.setHeader('Retry-After', '5');
    res.status(503).json(errorBody('SERVICE_UNAVAILABLE', 'The service is temporarily unavailable; retry later'));
    return;
  }
  req.log?.error({ err }, 'unhandled error');
  res.status(500).json(errorBody('INTERNAL_ERROR', 'Internal error'));
};

/** Bodies must be JSON when present: a form post or text body is a 400, not a silent empty object. */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is('application/json')) {
    next(new ApiError(400, 'INVALID_REQUEST', 'Content-Type must be application/json'));
    return;
  }
  next();
};
