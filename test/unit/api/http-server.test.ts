import { describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import express from 'express';
import { handleClientErrors } from '../../../src/api/http-server.js';

// Found by `npm run fuzz`: Node answers an oversized request line/headers (431) or a malformed
// request (400) itself, with an empty body, outside the envelope.

async function listening(): Promise<{ server: Server; port: number }> {
  const app = express();
  app.get('/x', (_req, res) => res.json({ success: true, data: {} }));
  const server = handleClientErrors(createServer(app));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe('HTTP-level client errors', () => {
  it('an oversized URL is 431 in the envelope', async () => {
    const { server, port } = await listening();
    try {
      const res = await new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: `/x?q=${'a'.repeat(40_000)}` }, (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => resolve({ status: r.statusCode!, type: String(r.headers['content-type']), body }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(res.status).toBe(431);
      expect(res.type).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' } });
    } finally {
      server.close();
    }
  });

  it('a malformed request is 400 in the envelope', async () => {
    const { server, port } = await listening();
    try {
      const text = await new Promise<string>((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () => s.write('GET /x HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n'));
        let got = '';
        s.on('data', (c) => (got += c));
        s.on('end', () => resolve(got));
        s.on('error', reject);
      });
      expect(text).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' } });
    } finally {
      server.close();
    }
  });
});
