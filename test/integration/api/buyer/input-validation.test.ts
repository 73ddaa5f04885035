import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../../support/context.js';
import { startTestIndexer } from '../../../support/indexer.js';
import { testApp } from '../../../support/app.js';
import { loadFixture } from '../../../../src/fixtures/load.js';
import { signCursor } from '../../../../src/lib/cursor.js';
import type { LiveIndexer } from '../../../../indexer/live.js';

// Bad input to the buyer routes is a 400 INVALID_REQUEST in the envelope naming each bad field,
// never a 500; cursors are tamper-evident and bound to their sort.

let ctx: TestContext;
let indexer: LiveIndexer;
let app: Express;

beforeAll(async () => {
  ctx = await createTestContext();
  await loadFixture(ctx.pool, {
    products: Array.from({ length: 5 }, (_, i) => ({
      productId: i + 1,
      name: `Card ${i}`,
      set: null,
      category: null,
      rarity: null,
      collectorNumber: null,
      imageUrl: null,
    })),
    skus: Array.from({ length: 5 }, (_, i) => ({ skuId: i + 1, productId: i + 1, condition: 'Near Mint', language: null, finish: null })),
    sellers: [{ sellerId: 1, sellerCode: 'maple', storeName: 'Maple', currency: 'CAD', region: 'CA' }],
    listings: Array.from({ length: 5 }, (_, i) => ({ sellerId: 1, skuId: i + 1, productId: i + 1, price: 100, quantity: 1 })),
  });
  indexer = await startTestIndexer(ctx);
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  app = testApp(ctx);
});

afterAll(async () => {
  await indexer?.stop();
  await ctx?.close();
});

async function expect400(res: request.Response, field?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe('INVALID_REQUEST');
  if (field) expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
}

describe('GET /search validation', () => {
  it.each([
    ['limit=101', 'limit'],
    ['limit=0', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=1.5', 'limit'],
    ['sort=price', 'sort'],
    ['checkoutMode=pickup', 'checkoutMode'],
    [`keyword=${'a'.repeat(256)}`, 'keyword'],
    [`sellerCode=${'a'.repeat(65)}`, 'sellerCode'],
    ['sellerCode=', 'sellerCode'],
    ['condition=', 'condition'],
    [`set=${'x'.repeat(256)}`, 'set'],
    ['condition[a]=x', 'condition'],
    ['cursor=', 'cursor'],
  ])('%s is a 400 naming %s', async (query, field) => {
    await expect400(await request(app).get(`/search?${query}`), field);
  });

  it('names every bad field at once', async () => {
    const res = await request(app).get('/search?limit=500&sort=up');
    await expect400(res);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['limit', 'sort']);
  });

  it('refuses garbage, tampered, foreign-sort and foreign-kind cursors', async () => {
    const first = await request(app).get('/search?limit=2');
    const cursor = first.body.data.nextCursor as string;
    expect(cursor).toBeTruthy();
    expect((await request(app).get(`/search?limit=2&cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);

    await expect400(await request(app).get('/search?cursor=garbage'), 'cursor');
    const [body, sig] = cursor.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, k: 'zzz' })).toString('base64url');
    await expect400(await request(app).get(`/search?cursor=${forged}.${sig}`), 'cursor');
    await expect400(await request(app).get(`/search?sort=name_desc&cursor=${encodeURIComponent(cursor)}`), 'cursor');
    const exportCursor = signCursor(ctx.env.CURSOR_SECRET, 'listings-export', payload);
    await expect400(await request(app).get(`/search?cursor=${exportCursor}`), 'cursor');
  });

  it('ignores unknown parameters and accepts repeated filters', async () => {
    const res = await request(app).get('/search?utm_source=mail&condition=Near%20Mint&condition=Damaged');
    expect(res.status).toBe(200);
    expect(res.body.data.items).toHaveLength(5);
  });
});

describe('GET /products/{productId} validation', () => {
  it.each([
    ['/products/0', 'productId'],
    ['/products/abc', 'productId'],
    ['/products/-3', 'productId'],
    ['/products/1?limit=101', 'limit'],
    ['/products/1?limit=0', 'limit'],
    ['/products/1?offset=-1', 'offset'],
    ['/products/1?condition=', 'condition'],
  ])('%s is a 400 naming %s', async (path, field) => {
    await expect400(await request(app).get(path), field);
  });

  it('answers 200 with product null for an unknown product', async () => {
    const res = await request(app).get('/products/999');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { offers: [], product: null } });
  });
});

describe('POST /lines/lookup validation', () => {
  it('refuses more than 500 pairs', async () => {
    const lines = Array.from({ length: 501 }, (_, i) => ({ sellerId: 1, skuId: i + 1 }));
    await expect400(await request(app).post('/lines/lookup').send({ lines }), 'lines');
  });

  it('accepts exactly 500 pairs, one result each', async () => {
    const lines = Array.from({ length: 500 }, (_, i) => ({ sellerId: 1, skuId: i + 1 }));
    const res = await request(app).post('/lines/lookup').send({ lines });
    expect(res.status).toBe(200);
    expect(res.body.data.lines).toHaveLength(500);
  });

  it.each([
    [{ lines: [{ sellerId: 0, skuId: 1 }] }, 'lines.0.sellerId'],
    [{ lines: [{ sellerId: 1, skuId: 'x' }] }, 'lines.0.skuId'],
    [{ lines: [{ sellerId: 1 }] }, 'lines.0.skuId'],
    [{}, 'lines'],
    [{ lines: 'all' }, 'lines'],
    [[1, 2], '(root)'],
  ])('%j is a 400 naming %s', async (body, field) => {
    await expect400(
      await request(app)
        .post('/lines/lookup')
        .send(body as object),
      field,
    );
  });

  it('refuses malformed JSON and non-JSON bodies', async () => {
    await expect400(await request(app).post('/lines/lookup').set('Content-Type', 'application/json').send('{"lines": ['));
    await expect400(await request(app).post('/lines/lookup').set('Content-Type', 'text/plain').send('lines'));
    await expect400(await request(app).post('/lines/lookup').type('form').send({ lines: 'x' }));
  });
});
