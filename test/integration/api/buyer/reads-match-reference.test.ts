import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../../support/context.js';
import { startTestIndexer } from '../../../support/indexer.js';
import { testApp, qs } from '../../../support/app.js';
import { applyOrderStatuses, applyScenarioExtras, generateScenario, type Scenario } from '../../../support/scenario.js';
import { reference } from '../../../support/reference.js';
import { PRODUCT_QUERIES, lookupPairs, searchCases, walkSearch, withoutPolicyText } from '../../../support/differential.js';
import { loadFixture } from '../../../../src/fixtures/load.js';
import type { LiveIndexer } from '../../../../indexer/live.js';

// Differential test: every buyer endpoint's full answer, read through the real API from the real
// index, equals an independent reference computed from the scenario data.

const SEED = Number(process.env.DIFF_SEED ?? 20261121);
let ctx: TestContext;
let indexer: LiveIndexer;
let app: Express;
let scenario: Scenario;
let ref: ReturnType<typeof reference>;

beforeAll(async () => {
  ctx = await createTestContext();
  scenario = generateScenario(SEED);
  await loadFixture(ctx.pool, scenario.fixture);
  // Orders enter as `created` before the first build and move to their final status (ship,
  // deliver, cancel, refund) under the live indexer, so both the rebuild and the order fan-out
  // (holds of the order's lines, salesCount on the seller document) are what is compared.
  await applyScenarioExtras(ctx.pool, scenario, { ordersAsCreated: true });
  indexer = await startTestIndexer(ctx);
  await applyOrderStatuses(ctx.pool, scenario);
  await indexer.idle();
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  app = testApp(ctx);
  ref = reference(scenario);
});

afterAll(async () => {
  await indexer?.stop();
  await ctx?.close();
});

describe('GET /products/{productId} equals the reference', () => {
  it('for every product, unfiltered, filtered and paged', async () => {
    const ids = [...ref.products, 7777777];
    for (const productId of ids) {
      for (const q of PRODUCT_QUERIES) {
        const res = await request(app).get(`/products/${productId}${qs(q as Record<string, string>)}`);
        expect(res.status).toBe(200);
        expect(res.body.degraded).toBeUndefined();
        const want = ref.productPage(productId, q);
        expect(res.body.data, `product ${productId} ${JSON.stringify(q)}`).toEqual(want);
        // Byte for byte: counters joined at read time keep the contract's field order.
        expect(JSON.stringify(res.body.data.offers)).toBe(JSON.stringify(want.offers));
      }
    }
  });
});

describe('GET /search equals the reference', () => {
  it('walks every case in both sorts with the exact items and facets', async () => {
    let nonEmpty = 0;
    for (const params of searchCases(scenario, SEED)) {
      for (const sort of ['name', 'name_desc'] as const) {
        const want = ref.search({ ...params, sort });
        const got = await walkSearch(app, { ...params, sort }, 5, false);
        expect(got.items, `${sort} ${JSON.stringify(params)}`).toEqual(want.items);
        expect(got.facets, `facets ${JSON.stringify(params)}`).toEqual(want.facets);
        if (want.items.length > 0) nonEmpty++;
      }
    }
    expect(nonEmpty).toBeGreaterThan(20); // the cases really exercise results, not only empty pages
  });

  it('a single page of the landing grid has the default size of 24', async () => {
    const res = await request(app).get('/search');
    expect(res.body.data.items).toHaveLength(Math.min(24, ref.search({}).items.length));
  });
});

describe('POST /lines/lookup equals the reference', () => {
  it('for every listing pair, unknown sellers and skus, in request order', async () => {
    const pairs = lookupPairs(scenario);
    const res = await request(app).post('/lines/lookup').send({ lines: pairs });
    expect(res.status).toBe(200);
    expect(res.body.degraded).toBeUndefined();
    const lines = withoutPolicyText(res.body.data.lines);
    expect(lines).toEqual(ref.lookup(pairs));
  });

  it('a line whose sku no offer document describes (its product from the sku document) and a listed one, each alone', async () => {
    const listed = scenario.fixture.listings[0]!;
    for (const pairs of [[{ sellerId: 999, skuId: scenario.fixture.skus[0]!.skuId }], [{ sellerId: listed.sellerId, skuId: listed.skuId }]]) {
      const res = await request(app).post('/lines/lookup').send({ lines: pairs });
      expect(res.status).toBe(200);
      expect(res.body.data.lines[0].product).not.toBeNull();
      expect(withoutPolicyText(res.body.data.lines)).toEqual(ref.lookup(pairs));
    }
  });
});
