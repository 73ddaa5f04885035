import express, { type RequestHandler } from 'express';
import { ApiError } from '../envelope.js';

// JSON bodies: a limit per route, sized to what the contract lets that route carry, and a nesting
// guard that runs on the raw bytes before JSON.parse: a large body nested millions of levels deep
// stalls the process in the parser (BENCHMARKS.md, "Measurements behind code choices").

/** Deepest JSON any route accepts; the deepest contract body (`{"items":[{...}]}`) needs 3. */
export const MAX_JSON_DEPTH = 16;

// POST /listings and /listings/bulk: 1000 items, each at most ~1.7 KB when every one of the 255
// externalRef characters is sent as a \u escape; 2 MB leaves room for whitespace.
const LISTING_WRITE_LIMIT = 2 * 1024 * 1024;
/** Body limits in bytes by exact path; routes not listed get DEFAULT_BODY_LIMIT. */
export const BODY_LIMITS: Readonly<Record<string, number>> = {
  '/lines/lookup': 64 * 1024, // 500 pairs of two int4 ids: ~25 KB
  '/listings': LISTING_WRITE_LIMIT,
  '/listings/bulk': LISTING_WRITE_LIMIT,
  '/me': 4 * 1024, // {"vacation": true}
};
export const DEFAULT_BODY_LIMIT = 256 * 1024;

/** The deepest array/object nesting of JSON text, counted outside strings; stops once above max. */
export function jsonDepthExceeds(buf: Uint8Array, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (inString) {
      if (b === 0x5c)
        i++; // backslash: skip the escaped character
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) {
      inString = true;
    } else if (b === 0x5b || b === 0x7b) {
      if (++depth > max) return true;
    } else if (b === 0x5d || b === 0x7d) {
      depth--;
    }
  }
  return false;
}

function depthGuard(_req: unknown, _res: unknown, buf: Buffer): void {
  if (jsonDepthExceeds(buf, MAX_JSON_DEPTH)) {
    throw new ApiError(400, 'INVALID_REQUEST', `JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`);
  }
}

/** The JSON body parser of the app: per-path limit, depth guard before parsing. */
export function jsonBody(): RequestHandler {
  const parsers = new Map<number, RequestHandler>();
  const parserFor = (limit: number): RequestHandler => {
    let p = parsers.get(limit);
    if (!p) {
      p = express.json({ limit, type: () => true, verify: depthGuard });
      parsers.set(limit, p);
    }
    return p;
  };
  // Express routing ignores case and a trailing slash; so does the limit lookup.
  return (req, res, next) => parserFor(BODY_LIMITS[req.path.toLowerCase().replace(/(.)\/+$/, '$1')] ?? DEFAULT_BODY_LIMIT)(req, res, next);
}
