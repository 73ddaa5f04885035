import { afterAll, beforeAll } from 'vitest';
import request from 'supertest';
import type { Express } from 'express';
import type { Env } from '../../src/config/env.js';
import { createTestContext, type TestContext } from './context.js';
import { seedSellerApi, sellerApp } from './seller-seed.js';

// The seller-API test harness: a test file calls useSellerApi() at its top and gets, from its
// beforeAll on, a fresh database with the seller-API seed (seller-seed.ts: catalog, maple, birch,
// ledger), a key of each seller and an app (the seller routes unless the file builds another);
// afterAll closes it. Requests go out with a seller's bearer key (maple's unless another is given).

export interface SellerKeys {
  maple: string;
  birch: string;
  ledger: string;
}

export interface SellerApiOptions {
  /** Environment overrides of the app (rate limits, timeouts). */
  env?: Partial<Env>;
  /** Builds the app instead of the seller routes alone (e.g. the whole app). */
  app?: (ctx: TestContext, env: Partial<Env>) => Express;
}

export interface SellerApi {
  readonly ctx: TestContext;
  readonly app: Express;
  readonly keys: SellerKeys;
  auth(key: string): { Authorization: string };
  get(path: string, key?: string): request.Test;
  post(path: string, body: unknown, key?: string): request.Test;
  patch(path: string, body: unknown, key?: string): request.Test;
  /** A fresh matched listing of `seller` for a new sku of `productId` (tests do not share stock); its sku id. */
  listing(seller: number, price: number, quantity: number, opts?: { externalRef?: string | null; productId?: number }): Promise<number>;
}

/** A buyer as a checkout enters one. */
export const CUSTOMER = {
  name: 'A. Buyer',
  email: 'a@example.com',
  shipping_address: { line1: '1 Main St', line2: null, city: 'Halifax', province: 'NS', postal_code: 'B3H 1A1', country: 'CA' },
};

export function useSellerApi(opts: SellerApiOptions = {}): SellerApi {
  let ctx: TestContext | undefined;
  let app: Express | undefined;
  let keys: SellerKeys | undefined;
  let skus = 5000;
  const ready = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`the seller-API harness has no ${what} before its beforeAll`);
    return v;
  };

  beforeAll(async () => {
    ctx = await createTestContext();
    keys = await seedSellerApi(ctx);
    app = opts.app ? opts.app(ctx, opts.env ?? {}) : sellerApp(ctx, opts.env);
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const api: SellerApi = {
    get ctx() {
      return ready(ctx, 'context');
    },
    get app() {
      return ready(app, 'app');
    },
    get keys() {
      return ready(keys, 'keys');
    },
    auth: (key) => ({ Authorization: `Bearer ${key}` }),
    get: (path, key = api.keys.maple) => request(api.app).get(path).set(api.auth(key)),
    post: (path, body, key = api.keys.maple) =>
      request(api.app)
        .post(path)
        .set(api.auth(key))
        .send(body as object),
    patch: (path, body, key = api.keys.maple) =>
      request(api.app)
        .patch(path)
        .set(api.auth(key))
        .send(body as object),
    async listing(seller, price, quantity, { externalRef = null, productId = 101 } = {}) {
      const skuId = ++skus;
      await api.ctx.pool.query(`INSERT INTO skus (sku_id, product_id, condition, language, finish) VALUES ($1, $2, 'Near Mint', 'English', NULL)`, [
        skuId,
        productId,
      ]);
      await api.ctx.pool.query(
        `INSERT INTO listings (seller_id, sku_id, product_id, price, quantity, external_ref, match_status) VALUES ($1, $2, $3, $4, $5, $6, 'matched')`,
        [seller, skuId, productId, price, quantity, externalRef],
      );
      return skuId;
    },
  };
  return api;
}
