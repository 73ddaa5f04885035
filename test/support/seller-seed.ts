import type { Express } from 'express';
import type { TestContext } from './context.js';
import { createApp, type RouteModule } from '../../src/api/app.js';
import { sellerRoutes } from '../../src/api/routes/seller/index.js';
import { createLogger } from '../../src/lib/logger.js';
import { issueApiKey } from '../../src/db/api-keys.js';
import type { Env } from '../../src/config/env.js';
import { appDeps } from './app.js';

// Seller-API test data, inserted with plain SQL: a small catalog and three sellers.
//   products 101 (skus 1001, 1002, 1003) and 102 (sku 2001); sku 9999 is NOT in the catalog.
//   maple (7): platform source, browse-eligible.  birch (8): platform source.  ledger (9): csv source.

export const MAPLE = 7;
export const BIRCH = 8;

export async function seedSellerApi(ctx: TestContext): Promise<{ maple: string; birch: string; ledger: string }> {
  await ctx.pool.query(`
    INSERT INTO products (product_id, name, set_name, category) VALUES
      (101, 'Lightning Bolt', 'Alpha', 'Magic: The Gathering'), (102, 'Counterspell', 'Alpha', 'Magic: The Gathering');
    INSERT INTO skus (sku_id, product_id, condition, language, finish) VALUES
      (1001, 101, 'Near Mint', 'English', 'Non-Foil'), (1002, 101, 'Damaged', 'English', 'Non-Foil'),
      (1003, 101, 'Unopened', 'English', 'Foil'), (2001, 102, 'Near Mint', 'English', 'Non-Foil');
    INSERT INTO sellers (seller_id, seller_code, store_name, currency, region, inventory_source, terms_version) VALUES
      (7, 'maple', 'Maple Cards', 'CAD', 'CA', 'platform', '2026-07'),
      (8, 'birch', 'Birch Games', 'CAD', 'CA', 'platform', '2026-07'),
      (9, 'ledger', 'Ledger Cards', 'CAD', 'CA', 'csv', '2026-07');
    INSERT INTO seller_shipping_options (seller_id, method, cost, tracked, position) VALUES
      (7, 'Tracked', 1299, true, 0), (8, 'Tracked', 999, true, 0), (9, 'Tracked', 999, true, 0);
  `);
  const [maple, birch, ledger] = await Promise.all(['maple', 'birch', 'ledger'].map(async (code) => (await issueApiKey(ctx.pool, code, 'test')).key));
  return { maple: maple!, birch: birch!, ledger: ledger! };
}

/** The app as production builds it, with the seller routes (and any extra test modules). */
export function sellerApp(ctx: TestContext, envOverrides: Partial<Env> = {}, extra: RouteModule[] = []): Express {
  // Seller routes never read through Degraded Mode: no cluster watcher for these apps.
  return createApp(
    appDeps(
      { env: { ...ctx.env, ...envOverrides }, pool: ctx.pool, es: ctx.es, index: ctx.index, logger: createLogger('silent') },
      { degraded: { watch: { enabled: false } } },
    ),
    [...sellerRoutes, ...extra],
  );
}
