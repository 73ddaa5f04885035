import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from './envelope.js';
import { CURRENT_API_VERSION } from './middleware/api-version.js';

/**
 * Answers requests Node's HTTP parser refuses before Express sees them (request line + headers
 * over --max-http-header-size: 431; malformed: 400) in the envelope, instead of Node's empty body.
 */
export function handleClientErrors(server: Server): Server {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    const body = JSON.stringify(errorBody('INVALID_REQUEST', tooLarge ? 'Request line and headers are too large' : 'Malformed HTTP request'));
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Service-Api-Version: ${CURRENT_API_VERSION}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

export interface DrainOptions {
  /** How long new requests are still served once draining (the load balancer's time to see /readyz fail). */
  drainMs: number;
  /** How long requests in flight then get to finish before their connections are cut. */
  graceMs: number;
}

/** Whether the process is draining: /readyz answers 503 from the moment it is. */
export interface Lifecycle {
  draining: boolean;
}

export interface GracefulServer {
  /** Requests begun and not yet ended. */
  readonly inFlight: number;
  /**
   * Stops the server the way a load balancer drains it: from the call on, `lifecycle.draining`
   * is true (so /readyz answers 503) and every response says `Connection: close`, so keep-alive
   * clients move to another instance; requests are still served for `drainMs` (a balancer only
   * stops sending once its health checks saw the 503); then the listener closes, idle connections
   * close, requests in flight finish, and what is still open `graceMs` later is cut. Resolves
   * with the number of requests cut (0 when every one finished).
   */
  drain(opts: DrainOptions): Promise<number>;
}

export function gracefulServer(server: Server, lifecycle: Lifecycle): GracefulServer {
  let inFlight = 0;
  // Prepended: it must run before the app writes anything (a handler may answer synchronously).
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    inFlight += 1;
    if (lifecycle.draining) res.setHeader('Connection', 'close');
    res.once('close', () => (inFlight -= 1));
  });
  return {
    get inFlight() {
      return inFlight;
    },
    async drain(opts) {
      lifecycle.draining = true;
      if (opts.drainMs > 0) await new Promise((resolve) => setTimeout(resolve, opts.drainMs));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), opts.graceMs)));
      const outcome = await Promise.race([closed.then(() => 'closed' as const), late]);
      clearTimeout(timer);
      if (outcome === 'closed') return 0;
      const cut = inFlight;
      server.closeAllConnections();
      await closed;
      return cut;
    },
  };
}
