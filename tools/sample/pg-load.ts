import { withTransaction, type Pool } from '../../src/db/pool.js';
import { bulkUpsertProducts, bulkUpsertSkus } from '../../src/db/catalog.js';
import { bulkUpsertPushedListings, lockManySellersListings } from '../../src/db/listings.js';
import { applyFixture } from '../../src/fixtures/load.js';
import { parseFixture } from '../../src/fixtures/parse.js';
import type { Sample } from './generate.js';

// Loads a sample straight into PostgreSQL in one transaction: the big tables (products, skus,
// listings) stream through COPY into staging tables and are upserted from there; the small ones
// (platform, sellers, handoff stores and variants) go through the fixture loader's own checks
// and writes. Upserts skip identical rows, so loading the same seed and N again changes nothing.

export interface TableStat {
  table: string;
  rows: number;
  written: number;
  ms: number;
  copyMs?: number;
}

export interface Progress {
  /** Called once per generated row of a big table. */
  row(table: string): void;
  /** Called when a table is done. */
  done(stat: TableStat): void;
}

export async function loadSample(pool: Pool, sample: Sample, progress: Progress): Promise<TableStat[]> {
  const stats: TableStat[] = [];
  const timed = async (table: string, run: () => Promise<{ rows: number; written: number; copyMs?: number }>) => {
    const started = performance.now();
    const stat = { table, ...(await run()), ms: Math.round(performance.now() - started) };
    stats.push(stat);
    progress.done(stat);
  };
  await withTransaction(pool, async (c) => {
    // Room for the staging tables and the change-feed capture's DISTINCT sort of millions of rows.
    await c.query("SET LOCAL temp_buffers = '256MB'");
    await c.query("SET LOCAL work_mem = '256MB'");
    await timed('products', async () => {
      const r = await bulkUpsertProducts(c, sample.products(), () => progress.row('products'));
      return { rows: r.copied, written: r.written, copyMs: r.copyMs };
    });
    await timed('skus', async () => {
      const r = await bulkUpsertSkus(c, sample.skus(), () => progress.row('skus'));
      return { rows: r.copied, written: r.written, copyMs: r.copyMs };
    });
    await timed('sellers, handoff stores, variants', async () => {
      const doc = parseFixture({ platform: sample.platform, sellers: [...sample.sellers()], handoffStores: sample.handoffStores() });
      const counts = await applyFixture(c, doc);
      const sum = (k: 'inFile' | 'written') => Object.values(counts).reduce((s, t) => s + t[k], 0);
      return { rows: sum('inFile'), written: sum('written') };
    });
    await timed('listings', async () => {
      await lockManySellersListings(
        c,
        Array.from({ length: sample.sizes.sellers }, (_, i) => i + 1),
      );
      const r = await bulkUpsertPushedListings(c, sample.listings(), () => progress.row('listings'));
      return { rows: r.copied, written: r.written, copyMs: r.copyMs };
    });
  });
  // Fresh statistics so the first queries after a big load get sensible plans. platform_settings
  // too: autovacuum never analyzes its one row, and without statistics the planner guesses 1,160
  // rows for it in the seller_readiness view, so checkout's entry query hash-joins every listing
  // of the marketplace (BENCHMARKS.md, "Measurements behind code choices").
  await pool.query('ANALYZE products, skus, listings, handoff_variants, sellers, platform_settings, seller_shipping_options, seller_prerequisites');
  return stats;
}
