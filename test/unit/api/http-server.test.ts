import { describe, expect, it } from 'vitest';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import express from 'express';
import { gracefulServer, handleClientErrors } from '../../../src/api/http-server.js';

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

/** A GET on a connection of its own; resolves with the status and the Connection header. */
function get(port: number, path: string): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (r) => {
      let body = '';
      r.on('data', (c) => (body += c));
      r.on('end', () => resolve({ status: r.statusCode!, connection: r.headers.connection, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('draining the server before exit', () => {
  async function drainable() {
    const lifecycle = { draining: false };
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const app = express();
    app.get('/readyz', (_req, res) => void res.status(lifecycle.draining ? 503 : 200).json({ draining: lifecycle.draining }));
    app.get('/slow', async (_req, res) => {
      await released;
      res.json({ done: true });
    });
    const server = createServer(app);
    const graceful = gracefulServer(server, lifecycle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, graceful, lifecycle, release, port: (server.address() as { port: number }).port };
  }

  it('answers /readyz 503 at once, serves new requests during the drain, lets the request in flight finish, then closes', async () => {
    const { graceful, lifecycle, release, port } = await drainable();
    expect((await get(port, '/readyz')).status).toBe(200);
    const slow = get(port, '/slow');
    await new Promise((r) => setTimeout(r, 50));
    expect(graceful.inFlight).toBe(1);
    const drained = graceful.drain({ drainMs: 300, graceMs: 10_000 });
    expect(lifecycle.draining).toBe(true);
    const during = await get(port, '/readyz');
    expect(during.status).toBe(503);
    expect(during.connection).toBe('close');
    await new Promise((r) => setTimeout(r, 600));
    // The drain period is over: the listener is closed, the slow request still runs.
    await expect(get(port, '/readyz')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    let finished = false;
    void drained.then(() => (finished = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(finished).toBe(false);
    release();
    expect(await slow).toMatchObject({ status: 200, body: '{"done":true}' });
    expect(await drained).toBe(0);
  });

  it('cuts what is still in flight when the grace period ends, and says how many', async () => {
    const { graceful, port } = await drainable();
    const slow = get(port, '/slow').catch((err: NodeJS.ErrnoException) => err.code);
    await new Promise((r) => setTimeout(r, 50));
    expect(await graceful.drain({ drainMs: 0, graceMs: 200 })).toBe(1);
    expect(await slow).toBe('ECONNRESET');
  });
});
