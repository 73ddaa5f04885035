import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../support/context.js';
import { startTestIndexer } from '../../support/indexer.js';
import { appDeps, qs } from '../../support/app.js';
import { applyScenarioExtras, generateScenario, type Scenario } from '../../support/scenario.js';
import { reference } from '../../support/reference.js';
import { PRODUCT_QUERIES, lookupPairs, searchCases, walkSearch, withoutPolicyText } from '../../support/differential.js';
import { loadFixture } from '../../../src/fixtures/load.js';
import type { LiveIndexer } from '../../../indexer/live.js';
import { createApp } from '../../../src/api/app.js';
import { routeModules } from '../../../src/api/routes/index.js';
import type { AppDeps } from '../../../src/api/deps.js';
import { createLogger } from '../../../src/lib/logger.js';
import { indexReads } from '../../../src/search/index-reads.js';
import { pgReads } from '../../../src/search/pg-reads.js';
import { productQuerySchema, searchQuerySchema, suggestQuerySchema } from '../../../src/contract/buyer.js';
import { terms } from '../../../src/search/text.js';
import type { BuyerReads } from '../../../src/search/reads.js';
import type { SearchPage } from '../../../src/search/queries/search-result.js';

// The PostgreSQL fallback against the same independent reference the index is checked with
// (api/buyer/reads-match-reference.test.ts), on the same seeded scenario, through the real API
// with Degraded Mode forced on (every answer comes from PostgreSQL: the breaker is held open, the
// last-good cache is empty). Then pgReads and indexReads side by side on the same data,
// field for field, including cursors.

const SEED = Number(process.env.DIFF_SEED ?? 20261121);
let ctx: TestContext;
let indexer: LiveIndexer;
let deps: AppDeps;
let app: Express;
let scenario: Scenario;
let ref: ReturnType<typeof reference>;
let pg: BuyerReads;
let idx: BuyerReads;

beforeAll(async () => {
  ctx = await createTestContext();
  scenario = generateScenario(SEED);
  await loadFixture(ctx.pool, scenario.fixture);
  await applyScenarioExtras(ctx.pool, scenario);
  indexer = await startTestIndexer(ctx);
  await indexer.idle();
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  // Degraded Mode held on: no watcher to close it, and it never half-opens.
  deps = appDeps(
    { env: ctx.env, pool: ctx.pool, es: ctx.es, index: ctx.index, logger: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'api') },
    { degraded: { watch: { enabled: false }, breaker: { openMs: 1e12 } } },
  );
  const mode = deps.services.degraded;
  mode.observe({ kind: 'unreachable', detail: 'forced by the test' });
  app = createApp(deps, routeModules);
  ref = reference(scenario);
  pg = pgReads(ctx.pool);
  idx = indexReads(ctx.es, ctx.index.alias);
});

afterAll(async () => {
  await indexer?.stop();
  await ctx?.close();
});

describe('Degraded Mode from PostgreSQL equals the reference (through the API)', () => {
  it('GET /products/{productId}: every product, unfiltered, filtered and paged', async () => {
    for (const productId of [...ref.products, 7777777]) {
      for (const q of PRODUCT_QUERIES) {
        const res = await request(app).get(`/products/${productId}${qs(q as Record<string, string>)}`);
        expect(res.status).toBe(200);
        expect(res.body.degraded).toBe(true);
        const want = ref.productPage(productId, q);
        expect(res.body.data, `product ${productId} ${JSON.stringify(q)}`).toEqual(want);
        expect(JSON.stringify(res.body.data.offers)).toBe(JSON.stringify(want.offers));
      }
    }
  });

  it('GET /search: every case in both sorts, every page, exact items and facets', async () => {
    let nonEmpty = 0;
    for (const params of searchCases(scenario, SEED)) {
      for (const sort of ['name', 'name_desc'] as const) {
        const want = ref.search({ ...params, sort });
        const got = await walkSearch(app, { ...params, sort }, 5, true);
        expect(got.items, `${sort} ${JSON.stringify(params)}`).toEqual(want.items);
        expect(got.facets, `facets ${JSON.stringify(params)}`).toEqual(want.facets);
        if (want.items.length > 0) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });

  it('POST /lines/lookup: every listing pair, unknown sellers and skus, in request order', async () => {
    const pairs = lookupPairs(scenario);
    const res = await request(app).post('/lines/lookup').send({ lines: pairs });
    expect(res.status).toBe(200);
    expect(res.body.degraded).toBe(true);
    const lines = withoutPolicyText(res.body.data.lines);
    expect(lines).toEqual(ref.lookup(pairs));
  });

  it('every answer came from PostgreSQL: no cache hit, no 503', () => {
    const m = deps.services.degraded.counters();
    expect(m.fallbacks).toBeGreaterThan(100);
    expect(m.cacheHits).toBe(0);
    expect(m.unavailable).toBe(0);
    expect(m.indexAnswers).toBe(0);
  });
});

describe('pgReads equals indexReads on the same data', () => {
  it('search pages, cursors (nextAfter) included, and facets', async () => {
    for (const params of searchCases(scenario, SEED)) {
      for (const sort of ['name', 'name_desc'] as const) {
        for (const limit of [1, 3, 100]) {
          const q = searchQuerySchema.parse({ ...params, sort, limit: String(limit) });
          let after: string | null = null;
          for (let page = 0; page < 100; page++) {
            const [a, b] = (await Promise.all([pg.search(q, after), idx.search(q, after)])) as [SearchPage, SearchPage];
            expect(a, `${sort} ${limit} ${JSON.stringify(params)} after ${after}`).toEqual(b);
            if (b.nextAfter === null) break;
            after = b.nextAfter;
          }
        }
      }
    }
  });

  it('product pages, lookups', async () => {
    for (const productId of [...ref.products, 7777777]) {
      for (const raw of [{}, { limit: '1', offset: '2' }, { condition: 'Near Mint' }, { finish: ['Foil', 'Non-Foil'] }, { offset: '100000' }]) {
        const q = productQuerySchema.parse(raw);
        const [a, b] = await Promise.all([pg.productPage(productId, q), idx.productPage(productId, q)]);
        expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      }
    }
    const lines = scenario.fixture.listings.slice(0, 120).map((l) => ({ sellerId: l.sellerId, skuId: l.skuId }));
    expect(await pg.lookup({ lines })).toEqual(await idx.lookup({ lines }));
    expect(await pg.lookup({ lines: [] })).toEqual([]);
  });

  it('suggestions: completions, counts and correction, unscoped and scoped, handoff offers and gates included', async () => {
    const names = [...new Set(scenario.fixture.products.map((p) => p.name).filter((n): n is string => n !== null))];
    const scopes = [
      {},
      { category: scenario.fixture.products[0]!.category! },
      { sellerCode: scenario.fixture.sellers[0]!.sellerCode },
      { sellerCode: 'north' },
    ];
    let answered = 0;
    for (const name of names) {
      const ts = terms(name);
      if (ts.length === 0) continue;
      const long = ts.reduce((a, b) => (b.length > a.length ? b : a));
      const typo = long.length >= 5 ? ts.map((t) => (t === long ? t.slice(0, 1) + t.slice(2, 3) + t.slice(1, 2) + t.slice(3) : t)).join(' ') : null;
      for (const text of [ts[0]!.slice(0, 3), name, ...(typo ? [typo] : [])]) {
        for (const scope of scopes) {
          const q = suggestQuerySchema.parse({ q: text, ...scope });
          const [a, b] = await Promise.all([pg.suggest(q), idx.suggest(q)]);
          expect(a, JSON.stringify(q)).toEqual(b);
          if (b.completions.length > 0 || b.correction !== null) answered++;
        }
      }
    }
    expect(answered).toBeGreaterThan(30);
  });

  it('gives up under its statement timeout instead of running on', async () => {
    const slow = pgReads(ctx.pool, { statementTimeoutMs: 1, connectTimeoutMs: 1000 });
    await expect(slow.search(searchQuerySchema.parse({}), null)).rejects.toThrow(/statement timeout/);
    // The connection went back to the pool clean (no open transaction, no leftover timeout).
    await expect(pg.search(searchQuerySchema.parse({}), null)).resolves.toBeDefined();
  });
});
