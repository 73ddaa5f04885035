import http from 'node:http';
import https from 'node:https';
import { BlockedAddressError, guardedLookup, literalHostReason } from './address-guard.js';

/** At most this much of a response body is read (for the attempt log); the rest is dropped. */
export const MAX_RESPONSE_BYTES = 4096;

export interface SendOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
}

export interface SendResult {
  statusCode: number | null;
  /** Set when no status came back (refused, connection error, timeout). */
  error: string | null;
  /** Seconds asked for by a Retry-After header (delta-seconds or an HTTP date), if any. */
  retryAfterSeconds: number | null;
  /** The first bytes of the response body, for the log. */
  bodySnippet: string;
  durationMs: number;
}

// Keep-alive: a busy endpoint gets its requests over a few reused connections instead of a new
// TCP (and TLS) handshake per event. The dispatcher bounds concurrency itself.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: Infinity }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: Infinity }),
};

/** Parses Retry-After: delta-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * One POST of `body` to `url`. Never follows redirects (a 3xx is just a non-2xx status), reads at
 * most MAX_RESPONSE_BYTES, and gives up after timeoutMs counted from the start (DNS, connect and
 * response together). Never throws.
 */
export function send(url: string, headers: Record<string, string>, body: Buffer, o: SendOptions): Promise<SendResult> {
  const started = performance.now();
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let statusCode: number | null = null;
    let retryAfter: number | null = null;
    const chunks: Buffer[] = [];
    let bytes = 0;
    let timer: NodeJS.Timeout | undefined;
    let req: http.ClientRequest | undefined;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        statusCode,
        error: statusCode === null ? error : null,
        retryAfterSeconds: retryAfter,
        bodySnippet: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8'),
        durationMs: performance.now() - started,
      });
    };

    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return finish('invalid webhook URL');
    }
    timer = setTimeout(() => {
      // A status already in hand counts (the body is only read for the log).
      finish(`timeout after ${o.timeoutMs} ms`);
      req?.destroy();
    }, o.timeoutMs);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return finish(`unsupported scheme ${target.protocol}`);
    if (!o.allowPrivateNetworks) {
      const reason = literalHostReason(target.hostname);
      if (reason) return finish(new BlockedAddressError(target.hostname, target.hostname, reason).message);
    }

    const lib = target.protocol === 'https:' ? https : http;
    req = lib.request(target, {
      method: 'POST',
      agent: agents[target.protocol],
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length), 'user-agent': 'marketplace-webhooks/1' },
      ...(o.allowPrivateNetworks ? {} : { lookup: guardedLookup as unknown as http.RequestOptions['lookup'] }),
    });
    req.on('response', (res) => {
      statusCode = res.statusCode ?? null;
      retryAfter = retryAfterSeconds(res.headers['retry-after']);
      res.on('data', (chunk: Buffer) => {
        if (bytes < MAX_RESPONSE_BYTES) chunks.push(chunk);
        bytes += chunk.length;
        if (bytes >= MAX_RESPONSE_BYTES) {
          // Enough for the log; a large or endless body must not hold the attempt.
          res.destroy();
          finish(null);
        }
      });
      res.on('end', () => finish(null));
      res.on('error', () => finish(null));
      res.on('close', () => finish(null));
    });
    req.on('error', (err) => finish(err.message || (err as NodeJS.ErrnoException).code || 'request failed'));
    req.end(body);
  });
}
