// Sample data: `npm run sample -- --listings N [--seed S] [--orders M] (--out FILE | --load)`.
// --out writes a fixture-format JSON document (small N: tests, demo); --load writes straight into
// DATABASE_URL with COPY (large N, up to millions of listings). Same seed + N => identical data.
// --orders M: M orders entered through checkout after the listings (with --out: the document's
// `orders`, entered by the fixture loader); with --load some are then accepted, shipped,
// delivered or cancelled through the seller API's operations. Same seed => same orders and ids.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { createSample } from '../tools/sample/generate.js';
import { writeSampleJson } from '../tools/sample/json.js';
import { loadSample } from '../tools/sample/pg-load.js';
import { progressReporter } from '../tools/sample/progress.js';
import { fixtureOrder, pickOrders, sampleShops } from '../tools/sample/orders.js';
import { loadSampleOrders } from '../tools/sample/pg-orders.js';

const argsSchema = z
  .object({
    listings: z.coerce.number().int().min(1).max(20_000_000),
    seed: z.coerce.number().int().min(0).max(0xffffffff).default(1),
    out: z.string().min(1).optional(),
    load: z.boolean().default(false),
    orders: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .refine((a) => (a.out !== undefined) !== a.load, { message: 'give exactly one of --out FILE or --load' });

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((a) => a !== '--'),
    options: {
      listings: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
      load: { type: 'boolean' },
      orders: { type: 'string' },
    },
  });
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success) {
    console.error(
      `usage: npm run sample -- --listings N [--seed S] [--orders M] (--out FILE | --load)\n${parsed.error.issues.map((i) => `  ${i.path.join('.') || 'args'}: ${i.message}`).join('\n')}`,
    );
    process.exit(2);
  }
  const args = parsed.data;
  const sample = createSample(args.listings, args.seed);
  const s = sample.sizes;
  console.error(
    `[sample] seed ${args.seed}: ${s.products} products, ${s.skus} skus, ${s.sellers} sellers, ${s.listings} listings, ${s.handoffStores} handoff stores, ${s.variants} variants`,
  );
  const progress = progressReporter({ ...s, orders: args.orders });
  const started = performance.now();
  const orders = args.orders > 0 ? pickOrders(args.seed, sampleShops(args.seed, s), args.orders) : [];
  if (args.orders > 0) {
    const moving = orders.filter((o) => o.moves.length > 0).length;
    console.error(
      `[sample] ${orders.length} orders picked in ${Math.round(performance.now() - started)} ms${args.load ? ` (${moving} to move after entry)` : ''}${orders.length < args.orders ? ': every shown offer is sold out' : ''}`,
    );
  }

  if (args.out !== undefined) {
    const out = createWriteStream(args.out);
    await writeSampleJson(out, sample, (table) => progress.row(table), args.orders > 0 ? orders.map(fixtureOrder) : undefined);
    out.end();
    await once(out, 'finish');
    progress.finish();
    console.error(`[sample] wrote ${args.out} in ${Math.round(performance.now() - started)} ms`);
    return;
  }
  // Room for the concurrent order entries and moves.
  const pool = createPool(loadEnv().DATABASE_URL, 5);
  try {
    await loadSample(pool, sample, progress);
    if (orders.length > 0) await loadSampleOrders(pool, orders, progress);
  } finally {
    await pool.end();
  }
  progress.finish();
  const ms = performance.now() - started;
  console.error(
    `[sample] loaded ${s.listings} listings${orders.length > 0 ? ` and ${orders.length} orders` : ''} in ${Math.round(ms)} ms (${Math.round(s.listings / (ms / 1000))} listings/s overall)`,
  );
}

await main();
