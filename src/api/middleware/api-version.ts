import type { RequestHandler } from 'express';
import { ApiError } from '../envelope.js';

export const CURRENT_API_VERSION = '2026-07';

/** Checked on every route before authentication (DECISIONS.md); every response names the version served. */
export const apiVersion: RequestHandler = (req, res, next) => {
  res.setHeader('X-Service-Api-Version', CURRENT_API_VERSION);
  const asked = req.header('X-Service-Api-Version');
  if (asked !== undefined && asked !== CURRENT_API_VERSION) {
    next(
      new ApiError(400, 'UNSUPPORTED_API_VERSION', `API version ${asked} is not supported; use ${CURRENT_API_VERSION}`, {
        supported: [CURRENT_API_VERSION],
      }),
    );
    return;
  }
  next();
};
