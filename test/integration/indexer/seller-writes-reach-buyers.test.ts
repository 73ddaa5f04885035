import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import { createTestContext, type TestContext } from '../../support/context.js';
import { startTestIndexer } from '../../support/indexer.js';
import { eventually } from '../../support/eventually.js';
import { testApp } from '../../support/app.js';
import { seedSellerApi } from '../../support/seller-seed.js';
import type { LiveIndexer } from '../../../indexer/live.js';

// A Platform's life through the seller API, checked through the buyer routes: each write shows
// or hides the offers within 2 s (seller API -> PostgreSQL -> change feed -> indexer -> index).

let ctx: TestContext;
let indexer: LiveIndexer;
let app: Express;
let key: string;

const offersOf = async (productId: number) =>
  (await request(app).get(`/products/${productId}`)).body.data.offers as { sellerId: number; price: number; available: number }[];
// How soon a write shows is the lag benchmark's to measure (bench:search-scale, commit-to-visible);
// here a write must show, with room for a loaded machine.
const reaches = async (check: () => Promise<void>) => void (await eventually(check, 15_000));
const seller = (r: request.Test) => r.set('Authorization', `Bearer ${key}`);

beforeAll(async () => {
  ctx = await createTestContext();
  ({ maple: key } = await seedSellerApi(ctx));
  indexer = await startTestIndexer(ctx);
  app = testApp(ctx);
});

afterAll(async () => {
  await indexer?.stop();
  await ctx?.close();
});

describe('seller writes reach buyer reads', () => {
  it('a new listing appears; an unmatched one never does', async () => {
    const res = await seller(request(app).post('/listings')).send([
      { skuId: 1001, productId: 101, price: 250, quantity: 3, asOf: '2026-11-10T00:00:00.000Z' },
      { skuId: 9999, productId: 101, price: 10, quantity: 3 },
    ]);
    expect(res.body.data.results.map((r: { status: string }) => r.status)).toEqual(['applied', 'unmatched']);
    await reaches(async () => expect(await offersOf(101)).toMatchObject([{ sellerId: 7, skuId: 1001, price: 250, available: 3 }]));
    const lookup = await request(app)
      .post('/lines/lookup')
      .send({ lines: [{ sellerId: 7, skuId: 9999 }] });
    expect(lookup.body.data.lines[0]).toMatchObject({ product: null, sku: null, currentPrice: null, available: 0 });
  });

  it('a partial update changes the price; a stale push changes nothing', async () => {
    await seller(request(app).post('/listings')).send({ skuId: 1001, price: 199 }).expect(200);
    await reaches(async () => expect(await offersOf(101)).toMatchObject([{ price: 199, available: 3 }]));
    const stale = await seller(request(app).post('/listings')).send({ skuId: 1001, price: 1, asOf: '2026-01-01T00:00:00.000Z' });
    expect(stale.body.data.results[0].status).toBe('rejected');
    await new Promise((r) => setTimeout(r, 600));
    expect(await offersOf(101)).toMatchObject([{ price: 199 }]);
  });

  it('a bulk delete hides the offer and an upsert revives it', async () => {
    await seller(request(app).post('/listings/bulk'))
      .send({ items: [{ op: 'delete', skuId: 1001 }] })
      .expect(200);
    await reaches(async () => expect(await offersOf(101)).toEqual([]));
    const lookup = await request(app)
      .post('/lines/lookup')
      .send({ lines: [{ sellerId: 7, skuId: 1001 }] });
    expect(lookup.body.data.lines[0]).toMatchObject({ product: { productId: 101 }, currentPrice: null, available: 0 });
    await seller(request(app).post('/listings/bulk'))
      .send({ items: [{ op: 'upsert', skuId: 1001, quantity: 2 }] })
      .expect(200);
    await reaches(async () => expect(await offersOf(101)).toMatchObject([{ price: 199, available: 2 }]));
  });

  it('vacation hides every offer and flags the cart line; turning it off shows them again', async () => {
    await seller(request(app).patch('/me')).send({ vacation: true }).expect(200);
    // The seller document goes in its own bulk request after the offers: the cart line may lag them.
    await reaches(async () => {
      expect(await offersOf(101)).toEqual([]);
      const lookup = await request(app)
        .post('/lines/lookup')
        .send({ lines: [{ sellerId: 7, skuId: 1001 }] });
      expect(lookup.body.data.lines[0]).toMatchObject({
        currentPrice: 199,
        sellerUnavailable: { sellerId: 7, reason: 'SELLER_ON_VACATION' },
        policy: { status: 'blocked', error: { code: 'CHECKOUT_SELLER_UNAVAILABLE' } },
      });
    });
    await seller(request(app).patch('/me')).send({ vacation: false }).expect(200);
    await reaches(async () => expect(await offersOf(101)).toHaveLength(1));
  });

  it('a purge empties the store in search', async () => {
    await seller(request(app).post('/listings')).send({ skuId: 2001, productId: 102, price: 500, quantity: 1 }).expect(200);
    await reaches(async () => expect((await request(app).get('/search?sellerCode=maple')).body.data.items).toHaveLength(2));
    const purge = await seller(request(app).post('/listings/purge'));
    expect(purge.body.data.purged).toBe(3); // the unmatched listing is live too
    await reaches(async () => expect((await request(app).get('/search?sellerCode=maple')).body.data.items).toEqual([]));
  });
});
