// Indexer benchmark (npm run bench:indexer -- [--listings 500000] [--seed 1] [--db NAME]
//   [--rate 100] [--duration 60] [--poll-ms 50] [--keep-index] [--keep] [--skip-lag] [--prefix P]).
//
// One run, one machine, one sample:
//  1. rebuild(): the zero-downtime full reindex (indexer/rebuild.ts) from PostgreSQL into a fresh
//     index behind a fresh alias; docs/s of the whole call and of its snapshot phase.
//  2. raw _bulk: the SAME documents, computed beforehand with the same builders from one snapshot
//     and serialized into the same NDJSON bulk bodies (same chunks), written with as many requests
//     in flight as the rebuild keeps (SNAPSHOT_BULK_CONCURRENCY) into a fresh index created the
//     same way (same settings and mapping, refresh off during the load); only the _bulk calls are
//     timed. reindex / raw is the figure.
//  3. commit-to-visible lag: the live indexer (`indexer/main.ts`, a child process) follows the
//     change feed while this process commits `rate` small transactions per second (one listing's
//     price set to a value unique to the write) for `duration` seconds, on a fixed schedule. A
//     poller searches the alias every `poll-ms` for the docs still pending (an `ids` query through
//     _search, so only refreshed segments answer; no refresh is forced) and records, per write,
//     the time from COMMIT returning to the first search response showing that price.
//
// --db NAME reuses a database that already holds a loaded sample (otherwise one is created, loaded
// and dropped at the end). --keep-index leaves the alias and its index for bench:read-api (the
// prefix is printed). --prefix P runs only the lag phase, on the alias an earlier --keep-index run
// left. --skip-lag runs only phases 1 and 2.
//
// Where the time goes is printed per phase as cores busy (this process, the PostgreSQL server,
// the Elasticsearch node; other users of the shared servers count too: read them beside the load).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPool, SNAPSHOT, withTransaction } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { poBoxSuspended } from '../src/db/offer-source.js';
import { rebuild, snapshotChunks, SNAPSHOT_BULK_CONCURRENCY } from '../indexer/rebuild.js';
import { BULK_FILTER_PATH, serializeOps } from '../indexer/bulk.js';
import { createIndex, finishBulkLoad } from '../indexer/index-admin.js';
import { horizon, saveCheckpoint } from '../src/db/feed-guard.js';
import { docId } from '../src/search/documents/model.js';
import { cpuLine, cpuMeter } from './cpu.js';
import { load, openWorld, pct, sleep, spawnIndexer } from './world.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    listings: { type: 'string', default: '500000' },
    seed: { type: 'string', default: '1' },
    db: { type: 'string' },
    rate: { type: 'string', default: '100' },
    duration: { type: 'string', default: '60' },
    'poll-ms': { type: 'string', default: '50' },
    'keep-index': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'skip-lag': { type: 'boolean', default: false },
    /** Only the lag phase, on the alias of this INDEX_PREFIX (an earlier --keep-index run). */
    prefix: { type: 'string' },
  },
});
const RATE = Number(values.rate);
const DURATION = Number(values.duration);
const POLL_MS = Number(values['poll-ms']);
const log = (m: string) => console.log(`[bench:indexer] ${m}`);
const now = () => performance.now();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const world = await openWorld({ tag: 'indexer', db: values.db, listings: Number(values.listings), seed: Number(values.seed), log });
const env = world.env;
const prefix = values.prefix ?? `bench-${randomBytes(3).toString('hex')}`;
const lagOnly = values.prefix !== undefined;
const index = indexNames(prefix);
const rawIndex = `${prefix}-raw`;
// 4 connections, as scripts/reindex.ts, with a longer request timeout (large bulk bodies on a loaded machine).
const pool = createPool(env.DATABASE_URL, 4);
pool.on('error', (err) => console.error(`idle database client error: ${err.message}`));
const es = createEsClient(env.ELASTICSEARCH_URL, 120_000);
const cpu = await cpuMeter(pool, es);
const summary: string[] = [];
const { rows: sizeRows } = await pool.query(
  `SELECT (SELECT count(*) FROM listings)::int AS listings, (SELECT count(*) FROM products)::int AS products,
          (SELECT count(*) FROM skus)::int AS skus, (SELECT count(*) FROM sellers)::int AS sellers,
          (SELECT count(*) FROM handoff_variants)::int AS variants`,
);
log(`prefix ${prefix}; ${JSON.stringify(sizeRows[0])}; ${load()}`);
// The live consumer of this database starts where this run's rebuild leaves it (a reused database
// may hold the checkpoint of an earlier run).
await pool.query(`DELETE FROM feed_checkpoints WHERE consumer = 'live'`);
if (lagOnly) await saveCheckpoint(pool, 'live', await horizon(pool));

let child: ReturnType<typeof spawn> | null = null;
try {
  let c0 = await cpu.sample();
  let c1 = c0;
  if (!lagOnly) {
    // ---- 1. rebuild() ----
    let t0 = now();
    const r = await rebuild({ pool, es, index, logger: createLogger('silent') });
    const rebuildMs = now() - t0;
    c1 = await cpu.sample();
    const reindexRate = r.docs / (rebuildMs / 1000);
    const snapshotRate = r.docs / (r.snapshotMs / 1000);
    summary.push(
      `rebuild(): ${r.docs} docs in ${(rebuildMs / 1000).toFixed(1)} s = ${Math.round(reindexRate)} docs/s end to end ` +
        `(snapshot phase ${(r.snapshotMs / 1000).toFixed(1)} s = ${Math.round(snapshotRate)} docs/s; ${r.replayedChanges} changes replayed); ${load()}`,
    );
    summary.push(`  ${cpuLine(c0, c1)}`);
    log(summary.at(-2)!);

    // ---- 2a. the same documents, computed once (timed separately: PostgreSQL + builders only) ----
    c0 = await cpu.sample();
    t0 = now();
    const bodies: Buffer[] = [];
    const counts: number[] = [];
    let serializeMs = 0;
    {
      // The rebuild's own chunk builder and serializer (indexer/rebuild.ts, indexer/bulk.ts).
      await withTransaction(
        pool,
        async (db) => {
          const poBox = await poBoxSuspended(db);
          for await (const { ops } of snapshotChunks(db, poBox)) {
            const s0 = now();
            const body = serializeOps(rawIndex, ops);
            bodies.push(body.body);
            counts.push(body.items);
            serializeMs += now() - s0;
          }
        },
        SNAPSHOT,
      );
    }
    const buildMs = now() - t0;
    c1 = await cpu.sample();
    const rawDocs = counts.reduce((a, b) => a + b, 0);
    const bytes = bodies.reduce((a, b) => a + b.length, 0);
    summary.push(
      `documents alone (same snapshot reads + builders, no Elasticsearch): ${rawDocs} docs in ${(buildMs / 1000).toFixed(1)} s = ` +
        `${Math.round(rawDocs / (buildMs / 1000))} docs/s, of which NDJSON serialization ${(serializeMs / 1000).toFixed(1)} s; ` +
        `${bodies.length} bulk bodies, ${(bytes / 1e6).toFixed(0)} MB; ${load()}`,
    );
    summary.push(`  ${cpuLine(c0, c1)}`);
    log(summary.at(-2)!);
    if (rawDocs !== r.docs) log(`WARNING: rebuild wrote ${r.docs} docs, the precomputed set has ${rawDocs}`);

    // ---- 2b. raw _bulk of those bodies into a fresh index with the same settings ----
    await createIndex(es, rawIndex, { bulkLoad: true });
    c0 = await cpu.sample();
    t0 = now();
    // As many bulk requests in flight as loadSnapshot keeps (SNAPSHOT_BULK_CONCURRENCY).
    let nextBody = 0;
    const sender = async () => {
      while (nextBody < bodies.length) {
        const body = bodies[nextBody++]!;
        await es.transport
          .request<{ errors: boolean; items?: Record<string, { error?: unknown }>[] }>(
            { method: 'POST', path: '/_bulk', bulkBody: body, querystring: { refresh: 'false', filter_path: BULK_FILTER_PATH } },
            { requestTimeout: 120_000 },
          )
          .then((res) => {
            if (res.errors) throw new Error(`raw bulk: item errors, first ${JSON.stringify(res.items?.find((i) => Object.values(i)[0]!.error))}`);
          });
      }
    };
    await Promise.all(Array.from({ length: SNAPSHOT_BULK_CONCURRENCY }, sender));
    const rawMs = now() - t0;
    c1 = await cpu.sample();
    t0 = now();
    await finishBulkLoad(es, rawIndex);
    const refreshMs = now() - t0;
    const rawRate = rawDocs / (rawMs / 1000);
    summary.push(
      `raw _bulk of the same documents: ${rawDocs} docs in ${(rawMs / 1000).toFixed(1)} s = ${Math.round(rawRate)} docs/s (final refresh ${Math.round(refreshMs)} ms not counted); ${load()}`,
    );
    summary.push(`  ${cpuLine(c0, c1)}`);
    log(summary.at(-2)!);
    const counted = (await es.count({ index: rawIndex })).count;
    if (counted !== rawDocs) log(`WARNING: raw index holds ${counted} docs, expected ${rawDocs}`);
    await es.indices.delete({ index: rawIndex });
    summary.push(
      `RATIO reindex/raw = ${(reindexRate / rawRate).toFixed(2)} (rebuild() end to end), ${(snapshotRate / rawRate).toFixed(2)} (snapshot phase); target >= 0.8`,
    );
    log(summary.at(-1)!);
  }

  // ---- 3. commit-to-visible lag under a steady write load ----
  if (!values['skip-lag']) {
    const total = Math.round(RATE * DURATION);
    const { rows: picks } = await pool.query(
      `SELECT seller_id, sku_id FROM listings WHERE deleted_at IS NULL AND match_status = 'matched' ORDER BY random() LIMIT $1`,
      [total],
    );
    const { rows: maxRows } = await pool.query(`SELECT coalesce(max(price), 0)::int AS m FROM listings`);
    const priceBase = maxRows[0].m + 1;

    const spawned = spawnIndexer(root, { DATABASE_URL: env.DATABASE_URL, ELASTICSEARCH_URL: env.ELASTICSEARCH_URL, INDEX_PREFIX: prefix }, log);
    child = spawned.child;
    const batches = spawned.batches;
    await sleep(3000); // start-up (tsx compile, LISTEN)

    const writer = createPool(env.DATABASE_URL, 8);
    const pending = new Map<string, { price: number; committedAt: number }>();
    const lags: number[] = [];
    const commitMs: number[] = [];
    let writeErrors = 0;
    let lateCommits = 0;
    let stopPolling = false;
    let polls = 0;
    let stopAt = Infinity;
    const poller = (async () => {
      while (!stopPolling || pending.size > 0) {
        const started = now();
        if (pending.size > 0) {
          const ids = [...pending.keys()];
          const res = await es.search<{ offer: { price: number } }>({
            index: index.alias,
            size: ids.length,
            query: { ids: { values: ids } },
            _source: ['offer.price'],
          });
          const at = now();
          polls += 1;
          for (const h of res.hits.hits) {
            const p = pending.get(h._id!);
            if (p && h._source?.offer.price === p.price) {
              lags.push(at - p.committedAt);
              pending.delete(h._id!);
            }
          }
          if (stopPolling && at - stopAt > 30_000) break;
        }
        await sleep(Math.max(0, POLL_MS - (now() - started)));
      }
    })();

    c0 = await cpu.sample();
    const t1 = now();
    const writes: Promise<void>[] = [];
    for (let i = 0; i < picks.length; i++) {
      const due = t1 + (i * 1000) / RATE;
      const wait = due - now();
      if (wait > 0) await sleep(wait);
      else if (wait < -100) lateCommits += 1;
      const { seller_id: sellerId, sku_id: skuId } = picks[i]!;
      const price = priceBase + i;
      writes.push(
        (async () => {
          const c = await writer.connect();
          try {
            const s = now();
            await c.query('BEGIN');
            await c.query(`UPDATE listings SET price = $1 WHERE seller_id = $2 AND sku_id = $3`, [price, sellerId, skuId]);
            await c.query('COMMIT');
            const committedAt = now();
            commitMs.push(committedAt - s);
            pending.set(docId.native(sellerId, skuId), { price, committedAt });
          } catch (err) {
            writeErrors += 1;
            log(`write failed: ${(err as Error).message}`);
          } finally {
            c.release();
          }
        })(),
      );
    }
    await Promise.all(writes);
    const writeSecs = (now() - t1) / 1000;
    stopAt = now();
    stopPolling = true;
    await poller;
    c1 = await cpu.sample();
    const neverSeen = pending.size;
    await writer.end();

    lags.sort((a, b) => a - b);
    commitMs.sort((a, b) => a - b);
    const bMs = batches.map((b) => b.ms).sort((a, b) => a - b);
    const bChanges = batches.map((b) => b.changes).sort((a, b) => a - b);
    summary.push(
      `lag: ${picks.length} writes in ${writeSecs.toFixed(1)} s (${(picks.length / writeSecs).toFixed(0)} tx/s, ${lateCommits} started >100 ms late), ` +
        `${writeErrors} failed, ${neverSeen} never visible within 30 s; commit-to-visible ms p50 ${pct(lags, 0.5).toFixed(0)} / ` +
        `p90 ${pct(lags, 0.9).toFixed(0)} / p99 ${pct(lags, 0.99).toFixed(0)} / max ${pct(lags, 1).toFixed(0)} (target p99 <= 2000); ${load()}`,
    );
    summary.push(
      `  write tx ms p50 ${pct(commitMs, 0.5).toFixed(1)} / p99 ${pct(commitMs, 0.99).toFixed(1)}; poll every ${POLL_MS} ms (${polls} polls); ` +
        `indexer batches ${batches.length}: changes p50 ${pct(bChanges, 0.5)} / max ${pct(bChanges, 1)}, batch ms p50 ${pct(bMs, 0.5)} / p99 ${pct(bMs, 0.99)} / max ${pct(bMs, 1)}`,
    );
    summary.push(`  ${cpuLine(c0, c1)} (the indexer child is inside neither figure but 'postgres'/'elasticsearch' work it causes)`);
    log(summary.at(-3)!);
  }
} finally {
  if (child) {
    child.kill('SIGTERM');
    await new Promise((r) => child!.once('exit', r));
  }
  await es.indices.delete({ index: rawIndex }).catch(() => undefined);
  if (!values['keep-index'] && !lagOnly) await es.indices.delete({ index: index.pattern }).catch(() => undefined);
  await pool.end();
  await es.close();
  if (world.created && !values.keep) await world.drop();
}

console.log(`\n## bench:indexer ${new Date().toISOString()} (${world.dbName}, ${values.listings} listings requested)`);
for (const s of summary) console.log(s);
if (values['keep-index']) console.log(`index kept: INDEX_PREFIX=${prefix} (alias ${index.alias}); DATABASE_URL=${env.DATABASE_URL}`);
process.exit(0);
