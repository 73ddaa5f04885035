import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { createApp, type RouteModule } from '../../../../src/api/app.js';
import type { AppDeps } from '../../../../src/api/deps.js';
import { ApiError } from '../../../../src/api/envelope.js';
import { loadEnv } from '../../../../src/config/env.js';
import type { Pool } from '../../../../src/db/pool.js';
import { indexNames } from '../../../../src/es/index-names.js';
import { httpMetrics } from '../../../../src/lib/http-metrics.js';
import type { Client } from '@elastic/elasticsearch';

// The request log: one line per request, in the shape pino-http wrote (dashboards and alerts read
// these fields), the level by status, and the X-Request-Id echoed or generated.

function appWithLog(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
      cb();
    },
  });
  const logger = pino({ level, name: 'api' }, stream);
  const routes: RouteModule = (app) => {
    app.get('/ok', (_req, res) => {
      res.json({ success: true });
    });
    app.get('/bad', () => {
      throw new ApiError(400, 'INVALID_REQUEST', 'nope');
    });
    app.get('/denied', () => {
      throw new ApiError(401, 'UNAUTHORIZED', 'Missing or invalid API key');
    });
    app.get('/limited', () => {
      throw new ApiError(429, 'RATE_LIMITED', 'slow down');
    });
    app.get('/gone', () => {
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'later');
    });
    app.get('/boom', async () => {
      throw new Error('kaboom');
    });
  };
  const services = { metrics: { http: httpMetrics(new Registry()) } } as AppDeps['services'];
  const deps = { env: loadEnv({}), pool: {} as Pool, es: {} as Client, index: indexNames('unit'), logger, services } as AppDeps;
  return { app: createApp(deps, [routes]), lines };
}

const settle = () => new Promise((r) => setTimeout(r, 20));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request log', () => {
  it('one info line per request with id, method, url, status and latency, in pino-http order', async () => {
    const { app, lines } = appWithLog();
    const res = await request(app).get('/ok?x=1&y=%20').expect(200);
    await settle();
    const id = res.headers['x-request-id'] as string;
    expect(id).toMatch(UUID);
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(Object.keys(line)).toEqual(['level', 'time', 'pid', 'hostname', 'name', 'req', 'res', 'responseTime', 'msg']);
    expect(line).toMatchObject({
      level: 30,
      name: 'api',
      req: { id, method: 'GET', url: '/ok?x=1&y=%20' },
      res: { statusCode: 200 },
      msg: 'request completed',
    });
    expect(Object.keys(line.req as object)).toEqual(['id', 'method', 'url']);
    expect(typeof line.responseTime).toBe('number');
    expect(line.responseTime as number).toBeGreaterThanOrEqual(0);
  });

  it("echoes the caller's X-Request-Id and logs under it", async () => {
    const { app, lines } = appWithLog();
    const res = await request(app).get('/ok').set('X-Request-Id', 'abc-123').expect(200);
    await settle();
    expect(res.headers['x-request-id']).toBe('abc-123');
    expect(lines[0]).toMatchObject({ req: { id: 'abc-123', url: '/ok' } });
  });

  it('ordinary 4xx info, refusals (401, 429) warn, 5xx error with an err and "request errored"; unhandled errors logged with the request', async () => {
    const { app, lines } = appWithLog();
    await request(app).get('/bad').expect(400);
    await request(app).post('/nowhere').send({ a: 1 }).expect(404);
    await request(app).get('/denied').expect(401);
    await request(app).get('/limited').expect(429);
    await request(app).get('/gone').expect(503);
    const boom = await request(app).get('/boom').expect(500);
    await settle();
    const byUrl = (url: string) => lines.filter((l) => (l.req as { url: string }).url === url);
    expect(byUrl('/bad')).toMatchObject([{ level: 30, res: { statusCode: 400 }, msg: 'request completed' }]);
    expect(byUrl('/nowhere')).toMatchObject([{ level: 30, req: { method: 'POST' }, res: { statusCode: 404 }, msg: 'request completed' }]);
    expect(byUrl('/denied')).toMatchObject([{ level: 40, res: { statusCode: 401 }, msg: 'request completed' }]);
    expect(byUrl('/limited')).toMatchObject([{ level: 40, res: { statusCode: 429 }, msg: 'request completed' }]);
    const gone = byUrl('/gone');
    expect(gone).toMatchObject([
      { level: 50, res: { statusCode: 503 }, err: { type: 'Error', message: 'failed with status code 503' }, msg: 'request errored' },
    ]);
    expect(Object.keys(gone[0]!).slice(5)).toEqual(['req', 'res', 'err', 'responseTime', 'msg']);
    const b = byUrl('/boom');
    expect(b.map((l) => l.msg)).toEqual(['unhandled error', 'request errored']);
    expect(b[0]).toMatchObject({ level: 50, req: { id: boom.headers['x-request-id'], method: 'GET', url: '/boom' }, err: { message: 'kaboom' } });
    expect(b[1]).toMatchObject({ level: 50, res: { statusCode: 500 }, err: { message: 'failed with status code 500' } });
  });

  it('below the logger level nothing is written: at warn, a scan of bad requests writes nothing, refusals do', async () => {
    const { app, lines } = appWithLog('warn');
    await request(app).get('/ok').expect(200);
    for (let i = 0; i < 20; i++) await request(app).get('/bad').expect(400);
    await request(app).get('/denied').expect(401);
    await settle();
    expect(lines.map((l) => (l.req as { url: string }).url)).toEqual(['/denied']);
  });

  it('replaces an X-Request-Id that is too long or has unsafe characters', async () => {
    const { app, lines } = appWithLog();
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    for (const bad of ['x'.repeat(8192), 'a b', 'id"><script>', 'é', 'x'.repeat(129)]) {
      const res = await request(app).get('/ok').set('X-Request-Id', bad).expect(200);
      expect(res.headers['x-request-id'], bad.slice(0, 20)).toMatch(uuid);
    }
    for (const good of ['abc-123', 'x'.repeat(128), 'trace:01HX.y_z/4=']) {
      expect((await request(app).get('/ok').set('X-Request-Id', good)).headers['x-request-id']).toBe(good);
    }
    await settle();
    expect(JSON.stringify(lines)).not.toContain('x'.repeat(129));
  });
});
