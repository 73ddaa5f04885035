import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import type { Client } from '@elastic/elasticsearch';
import { createTestContext, type TestContext } from '../../../support/context.js';
import { startTestIndexer } from '../../../support/indexer.js';
import { startEsNode, type EsNode } from '../../../support/es-node.js';
import { eventually } from '../../../support/eventually.js';
import { appDeps, qs } from '../../../support/app.js';
import { applyScenarioExtras, generateScenario, type Scenario } from '../../../support/scenario.js';
import { loadFixture } from '../../../../src/fixtures/load.js';
import type { LiveIndexer } from '../../../../indexer/live.js';
import { createApp } from '../../../../src/api/app.js';
import { routeModules } from '../../../../src/api/routes/index.js';
import type { AppDeps } from '../../../../src/api/deps.js';
import { createEsClient } from '../../../../src/es/client.js';
import { createPool } from '../../../../src/db/pool.js';
import { createLogger } from '../../../../src/lib/logger.js';

// Degraded Mode end to end, against a throwaway Elasticsearch node of this test's own (never the
// shared one): warm some requests while healthy, SIGKILL the node, and the API keeps answering:
// warmed requests from the last-good cache, the rest from PostgreSQL, all `degraded: true` with
// the data the index gave before, no 5xx; restart the node and Degraded Mode ends by itself.
// Then the cluster being "up but unhealthy": a hung node, a closed index and an unassigned
// primary behind the alias.

let node: EsNode;
let base: TestContext;
let ctx: TestContext;
let indexerEs: Client;
let indexer: LiveIndexer;
let scenario: Scenario;
let deps: AppDeps;
let app: Express;
let probeDeps: AppDeps;
let probeApp: Express;

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'api');

interface Req {
  name: string;
  method: 'get' | 'post';
  path: string;
  body?: unknown;
}

let requests: Req[];
/** Healthy answers (data only), captured through a separate app so `app`'s cache stays cold. */
const healthy = new Map<string, unknown>();

async function send(a: Express, r: Req) {
  const t0 = performance.now();
  const res =
    r.method === 'get'
      ? await request(a).get(r.path)
      : await request(a)
          .post(r.path)
          .send(r.body as object);
  return { status: res.status, body: res.body, headers: res.headers, ms: performance.now() - t0 };
}

function buildRequests(s: Scenario): Req[] {
  const out: Req[] = [];
  const searches: Record<string, unknown>[] = [
    {},
    { sort: 'name_desc' },
    { limit: 5 },
    { keyword: 'bolt' },
    { keyword: 'lim dul s' },
    { category: 'Magic: The Gathering' },
    { condition: ['Near Mint', 'Damaged'] },
    { sellerCode: 'maple' },
    { checkoutMode: 'manual' },
    { language: ['English', 'Japanese'], sort: 'name_desc', limit: 3 },
    { set: 'Alpha' },
    { finish: ['Foil'] },
  ];
  for (const q of searches) out.push({ name: `search ${JSON.stringify(q)}`, method: 'get', path: `/search${qs(q as Record<string, string>)}` });
  for (const p of s.fixture.products.slice(0, 16)) {
    out.push({ name: `product ${p.productId}`, method: 'get', path: `/products/${p.productId}` });
    out.push({ name: `product ${p.productId} NM`, method: 'get', path: `/products/${p.productId}${qs({ condition: ['Near Mint'], limit: 2 })}` });
  }
  const pairs = s.fixture.listings.map((l) => ({ sellerId: l.sellerId, skuId: l.skuId }));
  for (let i = 0; i < 4; i++) {
    out.push({ name: `lookup ${i}`, method: 'post', path: '/lines/lookup', body: { lines: pairs.slice(i * 30, i * 30 + 30) } });
  }
  return out;
}

/** Every page of a search through `a`, following nextCursor. */
async function walk(a: Express, params: Record<string, unknown>, limit: number) {
  const pages: { data: unknown; degraded: boolean }[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await request(a).get(`/search${qs({ ...params, limit, cursor } as unknown as Record<string, string>)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    pages.push({ data: res.body.data, degraded: res.body.degraded === true });
    cursor = res.body.data.nextCursor ?? undefined;
    if (!cursor) return pages;
  }
  throw new Error('walk did not end');
}

const warmed = (i: number) => i % 2 === 0;

beforeAll(async () => {
  node = await startEsNode();
  base = await createTestContext();
  indexerEs = createEsClient(node.url, 30_000);
  ctx = { ...base, es: indexerEs, env: { ...base.env, ELASTICSEARCH_URL: node.url, HEALTH_DETAILS: true } };
  scenario = generateScenario(4242);
  await loadFixture(ctx.pool, scenario.fixture);
  await applyScenarioExtras(ctx.pool, scenario);
  indexer = await startTestIndexer(ctx);
  await indexer.idle();
  await indexerEs.indices.refresh({ index: ctx.index.alias });
  // The app as production builds it: its own ES client with the production request timeout.
  deps = appDeps({ env: ctx.env, pool: ctx.pool, es: createEsClient(node.url, ctx.env.ES_REQUEST_TIMEOUT_MS), index: ctx.index, logger });
  app = createApp(deps, routeModules);
  probeDeps = appDeps({ ...deps, es: createEsClient(node.url, ctx.env.ES_REQUEST_TIMEOUT_MS) });
  probeApp = createApp(probeDeps, routeModules);
  requests = buildRequests(scenario);
  // A node just started answers its first queries slowly (JIT, caches); warm it through an app
  // with a generous query timeout so the healthy phase measures a warm cluster, not a cold one.
  const warmDeps = appDeps({ ...deps, es: createEsClient(node.url, 30_000) }, { degraded: { queryTimeoutMs: 30_000, watch: { enabled: false } } });
  const warmApp = createApp(warmDeps, routeModules);
  for (const r of requests) await send(warmApp, r);
  warmDeps.services.degraded.stop();
  await warmDeps.es.close();
}, 240_000);

afterAll(async () => {
  deps?.services.degraded.stop();
  probeDeps?.services.degraded.stop();
  await indexer?.stop();
  await Promise.allSettled([deps?.es.close(), probeDeps?.es.close(), indexerEs?.close()]);
  await base?.close();
  await node?.destroy();
}, 60_000);

describe('Degraded Mode with a real cluster failure', () => {
  it('healthy: answers from the index, no degraded flag; warms half of the requests', async () => {
    await eventually(async () => {
      const r = await request(app).get('/readyz');
      expect(r.body.data).toMatchObject({ postgres: 'up', degraded: false, cluster: { status: 'green' } });
    }, 10_000);
    for (const [i, r] of requests.entries()) {
      const want = await send(probeApp, r);
      expect(want.status, r.name).toBe(200);
      expect(want.body.degraded, r.name).toBeUndefined();
      healthy.set(r.name, want.body.data);
      if (warmed(i)) {
        const got = await send(app, r);
        expect(got.status).toBe(200);
        expect(got.body.degraded).toBeUndefined();
        expect(got.body.data, r.name).toEqual(want.body.data);
      }
    }
    const m = deps.services.degraded.counters();
    expect(m.indexAnswers).toBe(requests.filter((_, i) => warmed(i)).length);
    expect(deps.services.degraded.status().cache.entries).toBe(m.indexAnswers);
  });

  it('cluster killed: every request still answers 200, degraded, with the same data', async () => {
    const walkHealthy = await walk(probeApp, { sort: 'name_desc' }, 4);
    expect(walkHealthy.every((p) => !p.degraded)).toBe(true);

    await node.kill();
    const statuses: number[] = [];
    const slowest = { ms: 0, name: '' };
    // Twice: the first round crosses the breaker opening, the second runs with it open.
    for (let round = 0; round < 2; round++) {
      for (const [i, r] of requests.entries()) {
        const got = await send(app, r);
        statuses.push(got.status);
        if (got.ms > slowest.ms) Object.assign(slowest, { ms: got.ms, name: `${r.name} (round ${round}, ${warmed(i) ? 'cached' : 'PostgreSQL'})` });
        expect(got.status, `${r.name}: ${JSON.stringify(got.body)}`).toBe(200);
        expect(got.body.degraded, r.name).toBe(true);
        expect(got.body.data, r.name).toEqual(healthy.get(r.name));
      }
    }
    console.log(`[degraded] after SIGKILL: ${statuses.length} requests, all 200; slowest ${Math.round(slowest.ms)} ms: ${slowest.name}`);
    expect(statuses.every((s) => s < 500)).toBe(true);

    // Pages nobody warmed, followed by cursor, from PostgreSQL: the same pages the index gave.
    const walkDegraded = await walk(app, { sort: 'name_desc' }, 4);
    expect(walkDegraded.every((p) => p.degraded)).toBe(true);
    expect(walkDegraded.map((p) => p.data)).toEqual(walkHealthy.map((p) => p.data));

    const mode = deps.services.degraded;
    expect(mode.counters().cacheHits).toBeGreaterThanOrEqual(requests.filter((_, i) => warmed(i)).length);
    expect(mode.counters().fallbacks).toBeGreaterThanOrEqual(requests.filter((_, i) => !warmed(i)).length);
    expect(mode.counters().unavailable).toBe(0);

    await eventually(async () => {
      const r = await request(app).get('/readyz');
      expect(r.status).toBe(200); // still ready: PostgreSQL answers
      expect(r.body.data).toMatchObject({ status: 'degraded', postgres: 'up', degraded: true, cluster: { status: 'unreachable' } });
    }, 5000);
    const metrics = await request(app).get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.text).toMatch(/^degraded_mode 1$/m);
    expect(metrics.text).toMatch(/^degraded_cache_hits_total [1-9]\d*$/m);
    expect(metrics.text).toMatch(/^degraded_fallbacks_total [1-9]\d*$/m);
    expect(metrics.text).toMatch(/^degraded_unavailable_total 0$/m);
    expect((await request(app).get('/healthz')).status).toBe(200);
  });

  it('cluster down and PostgreSQL unreachable: 503 SERVICE_UNAVAILABLE with Retry-After, never a bare 500', async () => {
    const deadPg = createPool('postgres://postgres@127.0.0.1:1/nothing', 2);
    const d = appDeps({ ...deps, pool: deadPg });
    const a = createApp(d, routeModules);
    try {
      const res = await request(a).get('/search?keyword=never-warmed');
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ success: false, error: { code: 'SERVICE_UNAVAILABLE', message: expect.any(String) } });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      const ready = await request(a).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', details: { postgres: 'down' } });
      expect((await request(a).get('/metrics')).text).toMatch(/^degraded_unavailable_total 1$/m);
    } finally {
      d.services.degraded.stop();
      await deadPg.end();
    }
  });

  // Starting the node again takes most of this case's time: 30-60 s alone, over 120 s at load 16-18.
  it('cluster back: Degraded Mode ends by itself within 10 s', async () => {
    await node.restart();
    const ms = await eventually(
      async () => {
        const r = await request(app).get('/search');
        expect(r.status).toBe(200);
        expect(r.body.degraded).toBeUndefined();
      },
      10_000,
      200,
    );
    console.log(`[degraded] cluster answering again: Degraded Mode off after ${ms} ms`);
    const r = await request(app).get('/readyz');
    expect(r.body.data).toMatchObject({ status: 'ready', degraded: false, cluster: { status: expect.stringMatching(/green|yellow/) } });
    expect((await request(app).get('/metrics')).text).toMatch(/^degraded_mode 0$/m);
    // The restarted node is cold: a first query may still exceed the buyer timeout once.
    for (const req of requests.slice(0, 6)) {
      await eventually(
        async () => {
          const got = await send(app, req);
          expect(got.body.degraded).toBeUndefined();
          expect(got.body.data).toEqual(healthy.get(req.name));
        },
        10_000,
        200,
      );
    }
  }, 300_000);

  it('a hung cluster (SIGSTOP) never hangs a buyer request', async () => {
    const pid = node.pid()!;
    process.kill(pid, 'SIGSTOP');
    try {
      const times: number[] = [];
      for (const r of requests.slice(1, 9)) {
        const got = await send(app, r);
        times.push(got.ms);
        expect(got.status).toBe(200);
        expect(got.body.degraded).toBe(true);
        expect(got.body.data).toEqual(healthy.get(r.name));
      }
      console.log(`[degraded] hung cluster: answer times ${times.map((t) => Math.round(t)).join(', ')} ms`);
      // Each waits at most the 1.5 s query timeout (bounds loose for a loaded 2-core machine), and
      // only until the breaker opens; then answers come without touching the hung node.
      expect(Math.max(...times)).toBeLessThan(4000);
      expect(times.slice(-3).every((t) => t < 1000)).toBe(true);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await eventually(async () => expect((await request(app).get('/search')).body.degraded).toBeUndefined(), 10_000, 200);
  });

  it('a closed index behind the alias triggers Degraded Mode, reopening ends it', async () => {
    const [concrete] = Object.keys(await indexerEs.indices.getAlias({ name: ctx.index.alias }));
    await indexerEs.indices.close({ index: concrete! });
    try {
      await eventually(
        async () => {
          const r = await request(app).get('/readyz');
          expect(r.body.data).toMatchObject({ degraded: true, cluster: { status: 'probe-failed' } });
          expect(r.body.data.cluster.detail).toMatch(/index_closed/);
        },
        5000,
        100,
      );
      for (const r of requests.slice(0, 10)) {
        const got = await send(app, r);
        expect(got.status).toBe(200);
        expect(got.body.degraded).toBe(true);
        expect(got.body.data).toEqual(healthy.get(r.name));
      }
    } finally {
      await indexerEs.indices.open({ index: concrete!, wait_for_active_shards: 1 });
    }
    await eventually(async () => expect((await request(app).get('/search')).body.degraded).toBeUndefined(), 10_000, 200);
  });

  it('an index with an unassigned primary behind the alias (red) triggers Degraded Mode', async () => {
    const alias = ctx.index.alias;
    const [concrete] = Object.keys(await indexerEs.indices.getAlias({ name: alias }));
    const red = `${alias}-vred`;
    await indexerEs.indices.create({
      index: red,
      settings: { number_of_shards: 1, number_of_replicas: 0, 'index.routing.allocation.require._name': 'no-such-node' },
      wait_for_active_shards: 0,
    });
    await indexerEs.indices.updateAliases({
      actions: [{ add: { index: concrete!, alias, is_write_index: true } }, { add: { index: red, alias } }],
    });
    try {
      await eventually(
        async () => {
          const r = await request(app).get('/readyz');
          expect(r.body.data).toMatchObject({ degraded: true, cluster: { status: 'red' } });
          expect(r.body.data.cluster.detail).toMatch(/unassigned primary/);
        },
        5000,
        100,
      );
      for (const r of requests.slice(0, 10)) {
        const got = await send(app, r);
        expect(got.status).toBe(200);
        expect(got.body.degraded).toBe(true);
        expect(got.body.data).toEqual(healthy.get(r.name));
      }
    } finally {
      await indexerEs.indices.updateAliases({ actions: [{ remove: { index: red, alias } }] });
      await indexerEs.indices.delete({ index: red });
    }
    await eventually(async () => expect((await request(app).get('/search')).body.degraded).toBeUndefined(), 10_000, 200);
    const m = deps.services.degraded.counters();
    expect(m.unavailable).toBe(0);
    expect(m.opens).toBeGreaterThanOrEqual(4);
  });
});
