import type { Server } from 'node:http';
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
