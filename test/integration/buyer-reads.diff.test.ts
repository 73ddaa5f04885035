import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../support/context.js';
import { startTestIndexer } from '../support/indexer.js';
import { testApp, qs } from '../support/app.js';
import { applyScenarioExtras, generateScenario, prng, type Scenario } from '../support/scenario.js';
import { reference, type SearchParams } from '../support/reference.js';
import { loadFixture } from '../../src/fixtures/load.js';
import type { LiveIndexer } from '../../indexer/live.js';

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
  await applyScenarioExtras(ctx.pool, scenario);
  indexer = await startTestIndexer(ctx);
  await indexer.idle();
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  app = testApp(ctx);
  ref = reference(scenario);
});

afterAll(async () => {
  await indexer?.stop();
  await ctx?.close();
});

/** Every page of a search, following nextCursor until null. */
async function walk(params: SearchParams, limit: number) {
  const items: unknown[] = [];
  let facets: unknown;
  let cursor: string | undefined;
  for (let page = 0; page < 200; page++) {
    const res = await request(app).get(`/search${qs({ ...params, limit, cursor } as unknown as Record<string, string>)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.degraded).toBeUndefined();
    items.push(...res.body.data.items);
    facets ??= res.body.data.facets;
    expect(res.body.data.facets).toEqual(facets); // facets do not depend on the page
    cursor = res.body.data.nextCursor ?? undefined;
    if (!cursor) return { items, facets };
  }
  throw new Error('cursor walk did not end');
}

function searchCases(s: Scenario): SearchParams[] {
  const rnd = prng(SEED + 1);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const cases: SearchParams[] = [
    {},
    { keyword: 'bolt' },
    { keyword: 'LIGHTNING bolt' },
    { keyword: 'jotun' },
    { keyword: 'lim dul s' },
    { keyword: 'flabebe' },
    { keyword: 'full' },
    { keyword: 'nothing-matches-this' },
    { keyword: '!!!' },
    { category: 'Magic: The Gathering' },
    { set: 'Alpha', rarity: 'Rare' },
    { condition: ['Near Mint', 'Damaged'] },
    { condition: ['Unopened'], checkoutMode: 'manual' },
    { language: ['Français'], finish: ['Foil'] },
    { collectorNumber: ['1', '2', '3'] },
    { sellerCode: 'maple' },
    { sellerCode: 'north' },
    { sellerCode: 'birch' }, // on vacation: empty
    { sellerCode: 'nobody' }, // unknown: empty
    { checkoutMode: 'express' },
    { checkoutMode: 'manual' },
    { keyword: 'pikachu', sellerCode: 'maple', condition: ['Near Mint'] },
  ];
  for (let i = 0; i < 8; i++) {
    const p = pick(s.fixture.products);
    cases.push({
      ...(rnd() < 0.5 && p.category ? { category: p.category } : {}),
      ...(rnd() < 0.4 ? { condition: [pick(['Near Mint', 'Lightly Played', 'Damaged', 'Unopened'])] } : {}),
      ...(rnd() < 0.3 ? { language: ['English', 'Japanese'] } : {}),
      ...(rnd() < 0.3 && p.name ? { keyword: p.name.split(' ')[0] } : {}),
      ...(rnd() < 0.3 ? { checkoutMode: pick(['express', 'manual', 'any'] as const) } : {}),
    });
  }
  return cases;
}

describe('GET /products/{productId} equals the reference', () => {
  it('for every product, unfiltered, filtered and paged', async () => {
    const ids = [...ref.products, 7777777];
    for (const productId of ids) {
      for (const q of [{}, { limit: 2, offset: 1 }, { condition: ['Near Mint', 'Unopened'] }, { language: ['English'], finish: ['Foil'] }]) {
        const res = await request(app).get(`/products/${productId}${qs(q as Record<string, string>)}`);
        expect(res.status).toBe(200);
        expect(res.body.degraded).toBeUndefined();
        expect(res.body.data, `product ${productId} ${JSON.stringify(q)}`).toEqual(ref.productPage(productId, q));
      }
    }
  });
});

describe('GET /search equals the reference', () => {
  it('walks every case in both sorts with the exact items and facets', async () => {
    let nonEmpty = 0;
    for (const params of searchCases(scenario)) {
      for (const sort of ['name', 'name_desc'] as const) {
        const want = ref.search({ ...params, sort });
        const got = await walk({ ...params, sort }, 5);
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
    const pairs = [
      ...scenario.fixture.listings.map((l) => ({ sellerId: l.sellerId, skuId: l.skuId })),
      { sellerId: 999, skuId: scenario.fixture.skus[0]!.skuId },
      { sellerId: 1, skuId: 424242 },
      { sellerId: 999, skuId: 424242 },
    ].reverse();
    const res = await request(app).post('/lines/lookup').send({ lines: pairs });
    expect(res.status).toBe(200);
    const lines = res.body.data.lines as Record<string, any>[];
    for (const line of lines) {
      if (line.policy?.status === 'blocked') {
        expect(typeof line.policy.error.message).toBe('string');
        expect(typeof line.policy.error.action).toBe('string');
        delete line.policy.error.message;
        delete line.policy.error.action;
      }
    }
    expect(lines).toEqual(ref.lookup(pairs));
  });
});
