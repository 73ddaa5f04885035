import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../../support/context.js';
import { startTestIndexer } from '../../../support/indexer.js';
import { eventually } from '../../../support/eventually.js';
import { appDeps, qs } from '../../../support/app.js';
import { startTcpProxy, type TcpProxy } from '../../../support/tcp-proxy.js';
import { applyScenarioExtras, generateScenario } from '../../../support/scenario.js';
import { loadFixture } from '../../../../src/fixtures/load.js';
import type { LiveIndexer } from '../../../../indexer/live.js';
import { createApp } from '../../../../src/api/app.js';
import { routeModules } from '../../../../src/api/routes/index.js';
import type { AppDeps } from '../../../../src/api/deps.js';
import type { Facets } from '../../../../src/contract/buyer.js';
import { createEsClient } from '../../../../src/es/client.js';
import { createLogger } from '../../../../src/lib/logger.js';
import { indexReads } from '../../../../src/search/index-reads.js';
import { landingRequests, singleFilterRequests } from '../../../../src/search/degraded/warm-set.js';

// The Degraded Mode warm set end to end (docs/search-design.md "Degraded Mode: the warm set"):
// a seeded marketplace, the real indexer and the shared cluster; the app under test reaches the
// cluster through a loopback TCP forwarder the test can cut, so the cluster becomes unreachable
// for that app alone (connection refused) while the indexer keeps writing to it. Healthy answers
// come from a second app talking to the cluster directly.

let ctx: TestContext;
let indexer: LiveIndexer;
let proxy: TcpProxy;
let deps: AppDeps;
let app: Express;
let probeDeps: AppDeps;
let probeApp: Express;
let landing: Facets;

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'api');

async function healthy(params: Record<string, string>) {
  const res = await request(probeApp).get(`/search${qs(params)}`);
  expect(res.status).toBe(200);
  expect(res.body.degraded).toBeUndefined();
  return res.body.data as { items: { productId: number; fromPrice: number }[]; facets: Facets; nextCursor: string | null };
}

async function outage() {
  await proxy.cut();
  await eventually(async () => expect(deps.services.degraded.active).toBe(true), 10_000, 50);
}

async function recovery() {
  await proxy.restore();
  await eventually(async () => expect(deps.services.degraded.active).toBe(false), 15_000, 100);
}

beforeAll(async () => {
  ctx = await createTestContext();
  const scenario = generateScenario(7141);
  await loadFixture(ctx.pool, scenario.fixture);
  await applyScenarioExtras(ctx.pool, scenario);
  indexer = await startTestIndexer(ctx);
  await indexer.idle();
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  proxy = await startTcpProxy(ctx.env.ELASTICSEARCH_URL);
  // The app as production builds it (its own client, production timeouts, the cluster watcher),
  // with the warmer on and a short interval.
  deps = appDeps(
    { env: ctx.env, pool: ctx.pool, es: createEsClient(proxy.url, ctx.env.ES_REQUEST_TIMEOUT_MS), index: ctx.index, logger },
    { warm: { enabled: true, intervalMs: 300, concurrency: 2 } },
  );
  app = createApp(deps, routeModules);
  probeDeps = appDeps({ env: ctx.env, pool: ctx.pool, es: ctx.es, index: ctx.index, logger }, { degraded: { watch: { enabled: false } } });
  probeApp = createApp(probeDeps, routeModules);
}, 180_000);

afterAll(async () => {
  await deps?.services.stop();
  await probeDeps?.services.stop();
  await indexer?.stop();
  await deps?.es.close();
  await proxy?.close();
  await ctx?.close();
}, 60_000);

describe('Degraded Mode warm set', () => {
  it('the warmer fills the reserved cache with the landing grids and every single-filter first page, without live traffic', async () => {
    const mode = deps.services.degraded;
    await eventually(async () => expect(deps.services.warmer.last?.outcome).toBe('warmed'), 60_000, 100);
    landing = (await healthy({})).facets;
    const want = [...landingRequests(), ...singleFilterRequests(landing, 100)];
    // Every facet value of this marketplace: categories, sets, rarities, conditions, languages,
    // finishes, collector numbers, sellers, and the two checkout modes.
    const facetValues = Object.values(landing).reduce((n, vs) => n + vs.length, 0);
    expect(want.length).toBe(2 + facetValues + 2);
    expect(want.length).toBeGreaterThan(40);
    expect(mode.warmKeys().sort()).toEqual(want.map((r) => r.key).sort());
    // Nothing asked through the app: the general cache is empty, every entry came from the warmer.
    expect(mode.counters().indexAnswers).toBe(0);
    expect(mode.status().cache.entries).toBe(0);
    expect(mode.counters().warmRequests).toBeGreaterThanOrEqual(want.length);
    // Each entry is the index's answer to that request.
    const direct = indexReads(ctx.es, ctx.index.alias);
    for (const r of want) expect(JSON.parse(mode.cached(r.key).warm!), r.key).toEqual(await direct.search(r.query, null));
    // The index has not changed since: a check asks nothing.
    const again = await deps.services.warmer.tick();
    expect(again).toMatchObject({ outcome: 'unchanged', requests: 0 });
  });

  it('cluster unreachable: single-filter first pages nobody asked live are answered from the warm set, degraded, as healthy', async () => {
    const mode = deps.services.degraded;
    const asks: Record<string, string>[] = [
      { sort: 'name_desc' },
      { condition: landing.condition.at(-1)!.value },
      { language: landing.language[0]!.value },
      { sellerCode: landing.seller.at(-1)!.sellerCode },
      { set: landing.set[1]!.value },
      { collectorNumber: landing.collectorNumber[0]!.value },
      { checkoutMode: 'manual' },
    ];
    const before = new Map<string, unknown>();
    for (const q of asks) before.set(JSON.stringify(q), await healthy(q));

    await outage();
    const hits = mode.counters().cacheHits;
    for (const q of asks) {
      const res = await request(app).get(`/search${qs(q)}`);
      expect(res.status, JSON.stringify(q)).toBe(200);
      expect(res.body.degraded, JSON.stringify(q)).toBe(true);
      expect(res.body.data, JSON.stringify(q)).toEqual(before.get(JSON.stringify(q)));
    }
    expect(mode.counters().cacheHits - hits).toBe(asks.length);
    // From the cache, not PostgreSQL, and never from the index.
    expect(mode.counters().fallbackQueries).toBe(0);
    expect(mode.counters().indexAnswers).toBe(0);
  });

  let grid: Record<string, string>;
  let old: Awaited<ReturnType<typeof healthy>>;
  let changed: Awaited<ReturnType<typeof healthy>>;

  it('no warm pass runs in Degraded Mode, even when the index changes under it', async () => {
    const mode = deps.services.degraded;
    const warmer = deps.services.warmer;
    expect(mode.active).toBe(true);
    // The index changes (the indexer reaches the cluster; only the app is cut off): the cheapest
    // offer of the first product of a seller's grid drops to 1.
    grid = { sellerCode: landing.seller[0]!.sellerCode };
    old = await healthy(grid);
    const first = old.items[0]!;
    const { rowCount } = await ctx.pool.query(
      `UPDATE listings SET price = 1
        WHERE seller_id = (SELECT seller_id FROM sellers WHERE seller_code = $1) AND product_id = $2 AND deleted_at IS NULL`,
      [grid.sellerCode, first.productId],
    );
    expect(rowCount).toBeGreaterThan(0);
    await indexer.idle();
    await ctx.es.indices.refresh({ index: ctx.index.alias });
    await eventually(
      async () => {
        changed = await healthy(grid);
        expect(changed.items[0]).toMatchObject({ productId: first.productId, fromPrice: 1 });
      },
      10_000,
      100,
    );
    expect(changed).not.toEqual(old);

    const { warmRequests, warmPasses, warmFailures } = mode.counters();
    expect(await warmer.tick()).toMatchObject({ outcome: 'degraded', requests: 0 });
    // Several loop intervals later: still nothing asked, nothing kept.
    await new Promise((r) => setTimeout(r, 1500));
    expect(mode.counters()).toMatchObject({ warmRequests, warmPasses, warmFailures });
    const res = await request(app).get(`/search${qs(grid)}`);
    expect(res.body.degraded).toBe(true);
    expect(res.body.data).toEqual(old);
  });

  it('cluster back: the next warm pass takes the change, and the next outage answers the new grid', async () => {
    const mode = deps.services.degraded;
    const passes = mode.counters().warmPasses;
    await recovery();
    await eventually(async () => expect(mode.counters().warmPasses).toBeGreaterThan(passes), 30_000, 100);
    expect(deps.services.warmer.last?.outcome).toBe('warmed');

    await outage();
    const res = await request(app).get(`/search${qs(grid)}`);
    expect(res.status).toBe(200);
    expect(res.body.degraded).toBe(true);
    expect(res.body.data).toEqual(changed);
    expect(mode.counters().fallbackQueries).toBe(0);
    expect(mode.counters().indexAnswers).toBe(0);
    await recovery();
  });
});
