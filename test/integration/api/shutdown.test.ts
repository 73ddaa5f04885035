import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { createTestContext, type TestContext } from '../../support/context.js';
import { spawnApi } from '../../support/api-process.js';
import { exited } from '../../support/dispatcher-process.js';
import { eventually } from '../../support/eventually.js';
import { freePort } from '../../support/free-port.js';

// The API process on SIGTERM, as a load balancer drains it: /readyz answers 503 at once, new
// requests are still served for SHUTDOWN_DRAIN_MS, then the listener closes while a request in
// flight (here: a lookup whose body is still arriving) finishes with its answer, and only then
// does the process exit, with 0. A second SIGTERM changes nothing.

let ctx: TestContext;
let api: ChildProcess | undefined;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  if (api && api.exitCode === null) api.kill('SIGKILL');
  await ctx.close();
});

describe('API shutdown on SIGTERM', () => {
  it('answers /readyz 503 at once, finishes the request in flight, then exits 0', async () => {
    const port = await freePort();
    api = await spawnApi(port, {
      DATABASE_URL: ctx.databaseUrl,
      ELASTICSEARCH_URL: ctx.env.ELASTICSEARCH_URL,
      INDEX_PREFIX: ctx.env.INDEX_PREFIX,
      SHUTDOWN_DRAIN_MS: '6000',
      SHUTDOWN_GRACE_MS: '60000',
    });
    const child = api;
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);

    // A cart lookup whose body arrives in two parts: in flight from its first part on.
    const body = JSON.stringify({ lines: [{ sellerId: 1, skuId: 1 }] });
    const half = Math.floor(body.length / 2);
    let answered: { status: number; body: string } | undefined;
    const lookup = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/lines/lookup',
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      lookup.on('response', (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => resolve((answered = { status: r.statusCode!, body: text })));
      });
      lookup.on('error', reject);
    });
    lookup.write(body.slice(0, half));
    lookup.flushHeaders();
    await new Promise((r) => setTimeout(r, 500));

    const exit = exited(child);
    child.kill('SIGTERM');
    // As soon as the signal is handled (delivery is asynchronous: a request sent in the same
    // instant may still be answered 200), within the 6 s drain even on a loaded machine.
    await eventually(
      async () => {
        const ready = await fetch(`${base}/readyz`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
      },
      5000,
      20,
    );
    child.kill('SIGTERM'); // a second signal: still one shutdown

    // The drain period ends: the listener closes; the process waits for the lookup.
    await eventually(
      async () => {
        await expect(fetch(`${base}/healthz`)).rejects.toThrow();
      },
      20_000,
      200,
    );
    expect(child.exitCode).toBeNull();
    expect(answered).toBeUndefined();

    lookup.end(body.slice(half));
    const got = await response;
    expect(got.status).toBe(200);
    expect(JSON.parse(got.body)).toMatchObject({ success: true, data: { lines: [expect.any(Object)] } });
    expect(await exit).toEqual({ code: 0, signal: null });
  });
});
