// Sample data: `npm run sample -- --listings N [--seed S] [--out FILE | --load]`.
// --out writes a fixture-format JSON document (small N: tests, demo); --load writes straight into
// DATABASE_URL with COPY (large N, up to millions of listings). Same seed + N => identical data.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { createSample } from '../src/sample/generate.js';
import { writeSampleJson } from '../src/sample/json.js';
import { loadSample } from '../src/sample/pg-load.js';
import { progressReporter } from '../src/sample/progress.js';

const argsSchema = z
  .object({
    listings: z.coerce.number().int().min(1).max(20_000_000),
    seed: z.coerce.number().int().min(0).max(0xffffffff).default(1),
    out: z.string().min(1).optional(),
    load: z.boolean().default(false),
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
    },
  });
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success) {
    console.error(`usage: npm run sample -- --listings N [--seed S] [--out FILE | --load]\n${parsed.error.issues.map((i) => `  ${i.path.join('.') || 'args'}: ${i.message}`).join('\n')}`);
    process.exit(2);
  }
  const args = parsed.data;
  const sample = createSample(args.listings, args.seed);
  const s = sample.sizes;
  console.error(`[sample] seed ${args.seed}: ${s.products} products, ${s.skus} skus, ${s.sellers} sellers, ${s.listings} listings, ${s.handoffStores} handoff stores, ${s.variants} variants`);
  const progress = progressReporter(s);
  const started = performance.now();

  if (args.out !== undefined) {
    const out = createWriteStream(args.out);
    await writeSampleJson(out, sample, (table) => progress.row(table));
    out.end();
    await once(out, 'finish');
    progress.finish();
    console.error(`[sample] wrote ${args.out} in ${Math.round(performance.now() - started)} ms`);
    return;
  }
  const pool = createPool(loadEnv().DATABASE_URL, 2);
  try {
    await loadSample(pool, sample, progress);
  } finally {
    await pool.end();
  }
  progress.finish();
  const ms = performance.now() - started;
  console.error(`[sample] loaded ${s.listings} listings in ${Math.round(ms)} ms (${Math.round(s.listings / (ms / 1000))} listings/s overall)`);
}

await main();
