import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors } from '@elastic/elasticsearch';
import { createEsClient, failedRequest } from '../../../src/es/client.js';

// The client's own errors, as it builds them from a socket that never answers and a port that
// refuses, name the request they are about.

let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer(() => undefined); // accepts, never answers
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function errorOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('failedRequest', () => {
  it('names the request that timed out', async () => {
    const es = createEsClient(url, 100);
    const err = await errorOf(() => es.mget({ index: 'shop', ids: ['1'] }));
    expect(err).toBeInstanceOf(errors.TimeoutError);
    expect(failedRequest(err)).toBe('POST /shop/_mget');
    await es.close();
  });

  it('names the request whose connection was refused', async () => {
    const es = createEsClient('http://127.0.0.1:1', 1000);
    const err = await errorOf(() => es.cluster.health());
    expect(err).toBeInstanceOf(errors.ConnectionError);
    expect(failedRequest(err)).toBe('GET /_cluster/health');
    await es.close();
  });

  it('says nothing of an error that is not the client’s', () => {
    expect(failedRequest(new Error('bulk: 3 of 10 items failed'))).toBeUndefined();
    expect(failedRequest(new errors.ResponseError({ body: {}, statusCode: 404, headers: {}, warnings: null, meta: {} as never }))).toBeUndefined();
    expect(failedRequest('Request timed out')).toBeUndefined();
  });
});
