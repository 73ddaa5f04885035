import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createTestContext, type TestContext } from '../../../support/context.js';
import { startTestIndexer } from '../../../support/indexer.js';
import { testApp } from '../../../support/app.js';
import { applyScenarioExtras, generateScenario } from '../../../support/scenario.js';
import { loadFixture } from '../../../../src/fixtures/load.js';
import type { LiveIndexer } from '../../../../indexer/live.js';

// /openapi.json is a valid OpenAPI 3.1 document, and real responses of the running API validate
// against the response schemas it declares (the document and the code share the zod schemas).

let ctx: TestContext;
let indexer: LiveIndexer;
let app: Express;
let doc: Record<string, any>;

beforeAll(async () => {
  ctx = await createTestContext();
  const scenario = generateScenario(99, { products: 15, listings: 80 });
  await loadFixture(ctx.pool, scenario.fixture);
  await applyScenarioExtras(ctx.pool, scenario);
  indexer = await startTestIndexer(ctx);
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  app = testApp(ctx);
  doc = (await request(app).get('/openapi.json')).body;
});

afterAll(async () => {
  await indexer?.stop();
  await ctx?.close();
});

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/lines/lookup',
      '/listings',
      '/listings/bulk',
      '/listings/purge',
      '/me',
      '/orders',
      '/orders/{orderId}',
      '/orders/{orderId}/cancel',
      '/orders/{orderId}/fulfillment',
      '/products/{productId}',
      '/search',
      '/search/suggest',
    ]);
  });

  it('describes what real responses look like', async () => {
    const ajv = new Ajv2020({ strict: false });
    const check = async (path: string, method: 'get' | 'post', res: request.Response) => {
      expect(res.status).toBe(200);
      const schema = doc.paths[path][method].responses['200'].content['application/json'].schema;
      const validate = ajv.compile(schema);
      expect(validate(res.body), JSON.stringify(validate.errors)).toBe(true);
    };
    await check('/search', 'get', await request(app).get('/search?limit=3'));
    const someProduct = (await request(app).get('/search?limit=1')).body.data.items[0].productId;
    await check('/products/{productId}', 'get', await request(app).get(`/products/${someProduct}`));
    const someName = (await request(app).get('/search?limit=1')).body.data.items[0].name as string;
    const suggested = await request(app).get(`/search/suggest?q=${encodeURIComponent(someName.slice(0, 3))}`);
    await check('/search/suggest', 'get', suggested);
    expect(suggested.body.data.completions.length).toBeGreaterThan(0);
    await check(
      '/lines/lookup',
      'post',
      await request(app)
        .post('/lines/lookup')
        .send({
          lines: [
            { sellerId: 1, skuId: 1000 },
            { sellerId: 2, skuId: 99 },
          ],
        }),
    );
  });

  it('documents query parameters with their bounds', () => {
    const params = doc.paths['/search'].get.parameters as { name: string; schema: Record<string, unknown> }[];
    expect(params.map((p) => p.name)).toEqual(expect.arrayContaining(['keyword', 'sellerCode', 'condition', 'sort', 'limit', 'cursor']));
    const suggest = (
      doc.paths['/search/suggest'].get.parameters as { name: string; in: string; required: boolean; schema: Record<string, unknown> }[]
    ).filter((p) => p.in === 'query');
    expect(suggest.map((p) => [p.name, p.required])).toEqual([
      ['q', true],
      ['limit', false],
      ['category', false],
      ['sellerCode', false],
    ]);
    expect(suggest[0]!.schema).toMatchObject({ minLength: 1, maxLength: 100 });
  });

  it('serves a docs page', async () => {
    const res = await request(app).get('/docs');
    expect(res.status).toBe(200);
    expect(res.text).toContain('/docs/assets/start.js');
    expect((await request(app).get('/docs/assets/swagger-ui-bundle.js')).status).toBe(200);
  });
});
