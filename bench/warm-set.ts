// What a Degraded Mode warm pass costs (docs/search-design.md "Degraded Mode: the warm set"):
//   npm run bench:warm-set -- --prefix P [--passes 2] [--concurrency 1,2] [--per-facet 100]
// against DATABASE_URL / ELASTICSEARCH_URL and an alias already indexed under prefix P (refuses the
// shared default `mp` prefix and `marketplace` database). Each pass starts from a fresh warmer (so
// it runs even though the index did not change) with Elasticsearch's request cache cleared for the
// index first: a real pass follows an index change, and a refresh empties that cache anyway.
// Reports requests per pass, pass duration, per-request latency, the warm cache's size, and the
// cost of a check that finds the index unchanged.
import { parseArgs } from 'node:util';
import { loadEnv } from '../src/config/env.js';
import { createPool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { createDegradedMode } from '../src/search/degraded/mode.js';
import { createWarmer } from '../src/search/degraded/warmer.js';
import { indexReads } from '../src/search/index-reads.js';
import type { BuyerReads } from '../src/search/reads.js';
import { load, pct } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    prefix: { type: 'string' },
    passes: { type: 'string', default: '2' },
    concurrency: { type: 'string', default: '1,2' },
    'per-facet': { type: 'string', default: '100' },
  },
});
const env = loadEnv();
if (!values.prefix || values.prefix === 'mp') throw new Error('--prefix P: an indexed alias of your own (not the shared mp)');
if (new URL(env.DATABASE_URL).pathname === '/marketplace') throw new Error('DATABASE_URL: a database of your own, not the shared marketplace');

const index = indexNames(values.prefix);
const es = createEsClient(env.ELASTICSEARCH_URL, 60_000);
const pool = createPool(env.DATABASE_URL, 2);
const logger = createLogger('silent');
const infra = { env: { ...env, INDEX_PREFIX: values.prefix }, pool, es, index, logger };
const count = await es.count({ index: index.alias });
const [concrete] = Object.keys(await es.indices.getAlias({ name: index.alias }));
const listings = (await pool.query<{ n: string }>('SELECT count(*) AS n FROM listings WHERE deleted_at IS NULL')).rows[0]!.n;
console.log(`warm set on ${index.alias} (${concrete}: ${count.count} documents; ${listings} live listings), ${load()}`);
console.log(
  '| concurrency | pass | requests | kept | failures | pass ms | request p50 / p95 / max ms | entries | cache chars (largest entry) | unchanged check ms | load |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|---|');

for (const concurrency of values.concurrency.split(',').map(Number)) {
  for (let p = 1; p <= Number(values.passes); p++) {
    await es.indices.clearCache({ index: index.alias, request: true });
    const mode = createDegradedMode(infra, { watch: { enabled: false } });
    const direct = indexReads(es.child({ requestTimeout: env.DEGRADED_WARM_TIMEOUT_MS, maxRetries: 0 }), index.alias);
    const times: number[] = [];
    const timed: BuyerReads = {
      ...direct,
      search: async (q, after) => {
        const t0 = performance.now();
        try {
          return await direct.search(q, after);
        } finally {
          times.push(performance.now() - t0);
        }
      },
    };
    const warmer = createWarmer(
      infra,
      mode,
      { enabled: false, intervalMs: 1000, perFacet: Number(values['per-facet']), concurrency, timeoutMs: env.DEGRADED_WARM_TIMEOUT_MS },
      timed,
    );
    const pass = await warmer.tick();
    const t0 = performance.now();
    const check = await warmer.tick();
    const checkMs = Math.round(performance.now() - t0);
    if (pass.outcome !== 'warmed' || check.outcome !== 'unchanged') throw new Error(`unexpected: ${JSON.stringify({ pass, check })}`);
    times.sort((a, b) => a - b);
    const largest = Math.max(...mode.warmKeys().map((k) => k.length + mode.cached(k).warm!.length));
    console.log(
      `| ${concurrency} | ${p} | ${pass.requests} | ${pass.kept} | ${pass.failures} | ${pass.durationMs} | ${[0.5, 0.95, 1].map((q) => Math.round(pct(times, q))).join(' / ')} | ${pass.entries} | ${pass.bytes} (${largest}) | ${checkMs} | ${load()} |`,
    );
    await warmer.stop();
    mode.stop();
  }
}
await pool.end();
await es.close();
