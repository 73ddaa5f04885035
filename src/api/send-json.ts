import type { Response } from 'express';
import { okJson, okJsonHead } from './envelope.js';

/**
 * Sends JSON text exactly as `res.json` sends the object it is the text of (express 5: the
 * Content-Type it sets when none is set, then `res.send`, which adds the charset, Content-Length,
 * ETag and the 304 check), without serializing the answer a second time.
 */
export function sendJson(res: Response, json: string): void {
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  res.send(json);
}

/**
 * Sends the envelope of `okJson` around an answer's JSON, `within` it (`['{"lines":', '}']`):
 * text as `sendJson` sends it, or the UTF-8 bytes a degraded answer was kept as, copied once into
 * the response's bytes with the same headers (Buffers get no charset from `res.send`: set here).
 */
export function sendOkJson(res: Response, data: string | Buffer, extra: { degraded?: boolean }, within: readonly [string, string] = ['', '']): void {
  if (typeof data === 'string') {
    sendJson(res, okJson(within[0] + data + within[1], extra));
    return;
  }
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json; charset=utf-8');
  res.send(Buffer.concat([Buffer.from(okJsonHead(extra) + within[0]), data, Buffer.from(`${within[1]}}`)]));
}
