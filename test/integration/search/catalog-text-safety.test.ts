import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../support/context.js';
import { startTestIndexer } from '../../support/indexer.js';
import { testApp } from '../../support/app.js';
import { loadFixture } from '../../../src/fixtures/load.js';
import { pgReads } from '../../../src/search/pg-reads.js';
import { productQuerySchema, searchQuerySchema } from '../../../src/contract/buyer.js';
import type { LiveIndexer } from '../../../indexer/live.js';

// Catalog and store text reaches buyers' browsers as the API answers it, so neither store (the
// index, nor PostgreSQL in Degraded Mode) answers an image URL a browser would run or fetch from
// anywhere but HTTP(S), nor a name with bidirectional controls that reorder how it reads: the
// catalog writers store them cleaned, and documents and fallback answers are built cleaned.

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;

let ctx: TestContext;
let indexer: LiveIndexer;
let app: Express;

beforeAll(async () => {
  ctx = await createTestContext();
  const example = JSON.parse(readFileSync(new URL('../../fixtures/example.json', import.meta.url), 'utf8'));
  const fixture = {
    ...example,
    products: [
      { ...example.products[0], name: 'Lightning \u202Egpj.exe', set: 'Alpha\u2066', imageUrl: 'javascript:alert(document.cookie)' },
      { ...example.products[0], productId: 102, name: 'Dark Ritual', imageUrl: 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=' },
      { ...example.products[0], productId: 103, name: 'Counterspell', imageUrl: 'https://img.example/103.jpg' },
    ],
    skus: [...example.skus, { ...example.skus[0], skuId: 1002, productId: 102 }, { ...example.skus[0], skuId: 1003, productId: 103 }],
    sellers: [{ ...example.sellers[0], storeName: 'Maple \u202ESDRAC\u202C Cards' }],
    listings: [
      ...example.listings,
      { ...example.listings[0], skuId: 1002, productId: 102, externalRef: 'SKU-B' },
      { ...example.listings[0], skuId: 1003, productId: 103, externalRef: 'SKU-C' },
    ],
    handoffStores: [{ ...example.handoffStores[0], storeName: '\u200FNorth\u200E Shop' }],
  };
  await loadFixture(ctx.pool, fixture);
  indexer = await startTestIndexer(ctx);
  await ctx.es.indices.refresh({ index: ctx.index.alias });
  app = testApp(ctx);
}, 180_000);

afterAll(async () => {
  await indexer?.stop();
  await ctx?.close();
});

const images = (text: string) => [...text.matchAll(/"(?:imageUrl|image)":("[^"]*"|null)/g)].map((m) => JSON.parse(m[1]!) as string | null);

describe('catalog text as buyers get it', () => {
  it('the index: search, product page and cart lookup answer http(s) images or null, and names without bidi controls', async () => {
    const answers = [
      await request(app).get('/search?limit=10'),
      await request(app).get('/products/101'),
      await request(app).get('/products/102'),
      await request(app)
        .post('/lines/lookup')
        .send({
          lines: [
            { sellerId: 7, skuId: 1001 },
            { sellerId: 7, skuId: 1002 },
          ],
        }),
    ];
    for (const res of answers) expect(res.status).toBe(200);
    const text = answers.map((r) => r.text).join('\n');
    expect(text).not.toMatch(BIDI);
    expect(text).not.toMatch(/javascript:|data:image/);
    expect(text).toContain('Lightning gpj.exe');
    expect(text).toContain('Maple SDRAC Cards');
    expect(new Set(images(text))).toEqual(new Set([null, 'https://img.example/103.jpg']));
    // The seller facet's label is the cleaned store name too.
    expect(answers[0]!.body.data.facets.seller).toEqual(expect.arrayContaining([expect.objectContaining({ storeName: 'Maple SDRAC Cards' })]));
  });

  it('rows written around the catalog writers (straight SQL) are cleaned when documents are built', async () => {
    await ctx.pool.query(`UPDATE products SET name = 'Counter\u202Espell', image_url = 'javascript:alert(1)' WHERE product_id = 103`);
    await ctx.pool.query(`UPDATE sellers SET store_name = 'Maple \u2067Cards' WHERE seller_id = 7`);
    await indexer.idle();
    await ctx.es.indices.refresh({ index: ctx.index.alias });
    const res = await request(app).get('/products/103');
    expect(res.body.data.product).toMatchObject({ name: 'Counterspell', imageUrl: null });
    expect(res.body.data.offers.map((o: { sellerName: string }) => o.sellerName)).toEqual(['Maple Cards']);
    const pg = await pgReads(ctx.pool).productPage(103, productQuerySchema.parse({}));
    expect(pg.product).toMatchObject({ name: 'Counterspell', imageUrl: null });
    expect(JSON.stringify(pg)).not.toMatch(BIDI);
  });

  it('PostgreSQL (Degraded Mode): the same answers', async () => {
    const pg = pgReads(ctx.pool);
    const pages = [
      await pg.search(searchQuerySchema.parse({ limit: '10' }), null),
      await pg.productPage(101, productQuerySchema.parse({})),
      await pg.productPage(102, productQuerySchema.parse({})),
      await pg.lookup({
        lines: [
          { sellerId: 7, skuId: 1001 },
          { sellerId: 7, skuId: 1002 },
        ],
      }),
    ];
    const text = JSON.stringify(pages);
    expect(text).not.toMatch(BIDI);
    expect(text).not.toMatch(/javascript:|data:image/);
    expect(text).toContain('Lightning gpj.exe');
    expect(new Set(images(text))).toEqual(new Set([null]));
  });
});
