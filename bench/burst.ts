// One seller's burst beside everyone else's small changes (npm run bench:burst -- [--listings 200000]
//   [--seed 3] [--db NAME] [--rate 20] [--kills 0] [--kill-every 8] [--rounds 1] [--seller-api] [--hold-indexer] [--keep]).
//
// One run, one machine, one sample:
//  1. rebuild(): a full build of the sample into a fresh alias, timed: listings/s, the yardstick.
//  2. The live indexer (`indexer/main.ts`, a child process) follows the change feed on that alias,
//     with the API (`src/main.ts`, all routes) and one buyer (bench/buyer-loop.ts) as child
//     processes too. For 30 s the buyer searches alone (p99 "before": ~500 searches, so the p99
//     is not one slow search of ~170).
//  3. The burst: the platform seller with the most live listings reprices every one of them through
//     POST /listings/bulk, 1,000 items a call, 4 calls at once. Meanwhile a second writer commits
//     `rate` price changes a second of other sellers' listings (each followed to visibility through
//     _search), and the buyer keeps searching. With --kills N the indexer is SIGKILLed N times,
//     `kill-every` seconds apart from the burst's start, and started again at once.
//     With --rounds R the burst (and 3.-4.) is repeated R times against the same rebuild, each
//     round after the last has drained; --kills applies to the last round only (a clean round
//     and one with SIGKILLs share one rebuild, which at 2,000,000 listings is most of a run).
//  4. Reports: the burst's last change visible (every repriced listing's price found in the index
//     through _search) after its first write; the live drain rate (listings / that time) against
//     the rebuild's listings/s; the other sellers' commit-to-visible p50/p99 during the burst;
//     buyer search p99 before and during; and no loss: every changed listing equals PostgreSQL.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createPool } from '../src/db/pool.js';
import { createEsClient } from '../src/es/client.js';
import { indexNames } from '../src/es/index-names.js';
import { createLogger } from '../src/lib/logger.js';
import { issueApiKey } from '../src/db/api-keys.js';
import { docId } from '../src/search/documents/model.js';
import { rebuild } from '../indexer/rebuild.js';
import { LIVE_CONSUMER } from '../indexer/live.js';
import { dropCheckpoint } from '../src/db/feed-guard.js';
import { load, openWorld, pct, sleep, spawnApi, spawnIndexer, type IndexerBatch } from './world.js';
import { lagLine, startLiveWrites } from './live-writes.js';
import { notYetPriced } from './indexed-prices.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    listings: { type: 'string', default: '200000' },
    seed: { type: 'string', default: '3' },
    db: { type: 'string' },
    rate: { type: 'string', default: '20' },
    kills: { type: 'string', default: '0' },
    'kill-every': { type: 'string', default: '8' },
    rounds: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
    'seller-api': { type: 'boolean', default: false },
    'hold-indexer': { type: 'boolean', default: false },
  },
});
const log = (m: string) => console.log(`[bench:burst] ${m}`);
// A SIGKILLed indexer is started again unpaused: the two options measure different things.
if (values['hold-indexer'] && Number(values.kills) > 0) throw new Error('--hold-indexer and --kills cannot be combined');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KILLS = Number(values.kills);
const KILL_EVERY_MS = Number(values['kill-every']) * 1000;
const ROUNDS = Number(values.rounds);
const CALL_ITEMS = 1000;
/** The buyer alone before each burst: its p99 is the yardstick of the buyer's target. */
const BUYER_ALONE_MS = 30_000;
const CALLS_AT_ONCE = 4;
/** Ids of what is left of the burst asked for in each round of the visibility poll, beside the last calls'. */
const VISIBLE_HEAD = 5000;

const world = await openWorld({ tag: 'burst', db: values.db, listings: Number(values.listings), seed: Number(values.seed), log });
const env = world.env;
const prefix = `bench-${randomBytes(3).toString('hex')}`;
const index = indexNames(prefix);
const pool = createPool(env.DATABASE_URL, 8);
pool.on('error', (err) => console.error(`idle database client error: ${err.message}`));
const es = createEsClient(env.ELASTICSEARCH_URL, 120_000);
const summary: string[] = [];
const say = (m: string) => {
  summary.push(m);
  log(m);
};

// The seller with the most live listings among those whose listings the API writes.
const { rows: top } = await pool.query<{ seller_id: number; seller_code: string; n: number }>(
  `SELECT s.seller_id, s.seller_code, count(*)::int AS n FROM listings l JOIN sellers s USING (seller_id)
    WHERE l.deleted_at IS NULL AND l.match_status = 'matched' AND s.inventory_source = 'platform'
    GROUP BY 1, 2 ORDER BY n DESC LIMIT 1`,
);
const big = top[0]!;
const { rows: totalRows } = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM listings WHERE deleted_at IS NULL`);
const totalListings = totalRows[0]!.n;

/** The API and the buyer, stopped at the end whatever happens. */
const children: ChildProcess[] = [];
const indexer = { child: null as ReturnType<typeof spawnIndexer>['child'] | null };
const batches: IndexerBatch[] = [];
const startIndexer = () => {
  const spawned = spawnIndexer(root, { DATABASE_URL: env.DATABASE_URL, ELASTICSEARCH_URL: env.ELASTICSEARCH_URL, INDEX_PREFIX: prefix }, log);
  indexer.child = spawned.child;
  // The batches of every run of the indexer, in one list.
  spawned.batches.push = (...b: IndexerBatch[]) => batches.push(...b);
};
const stopIndexer = async (signal: NodeJS.Signals) => {
  const c = indexer.child;
  if (!c || c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill(signal);
  await exited;
};

/** An API process on the bench's index (world.ts spawnApi); its base URL once its suggestion catalog is current. */
async function startApi(): Promise<string> {
  const { child, base } = await spawnApi(
    root,
    {
      DATABASE_URL: env.DATABASE_URL,
      ELASTICSEARCH_URL: env.ELASTICSEARCH_URL,
      INDEX_PREFIX: prefix,
      RATE_LIMIT_SELLER_PER_MIN: '1000000',
      RATE_LIMIT_PUBLIC_PER_MIN: '1000000000',
      DEGRADED_WARM_ENABLED: 'false',
    },
    ['--max-old-space-size=256'],
  );
  children.push(child);
  return base;
}

try {
  // ---- 1. the rebuild, the yardstick ----
  // A reused database keeps the live checkpoint of an earlier run (with whatever it left behind):
  // dropped, the rebuild sets it to its own snapshot, where the live indexer then starts.
  await dropCheckpoint(pool, LIVE_CONSUMER);
  const t0 = performance.now();
  const r = await rebuild({ pool, es, index, logger: createLogger('silent') });
  const rebuildS = (performance.now() - t0) / 1000;
  const rebuildRate = totalListings / rebuildS;
  say(`rebuild(): ${totalListings} listings (${r.docs} docs) in ${rebuildS.toFixed(1)} s = ${Math.round(rebuildRate)} listings/s; ${load()}`);

  // ---- 2. the live indexer, the API, a buyer ----
  startIndexer();
  const { key } = await issueApiKey(pool, big.seller_code, 'bench burst');
  // The API and the buyer as they run: processes of their own, not this one, whose pollers would
  // delay the API's event loop and the buyer's reads. With --seller-api the seller's calls go to
  // a second API process (the integration API deployed apart from the storefront's).
  const base = await startApi();
  const sellerBase = values['seller-api'] ? await startApi() : base;
  await sleep(3000);

  // Each search: its start (this process's performance.now()) and how long it took.
  const searches: { at: number; ms: number }[] = [];
  const buyer = spawn(process.execPath, ['--import', 'tsx', 'bench/buyer-loop.ts', base], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(buyer);
  let buyerOut = '';
  buyer.stdout!.on('data', (d: Buffer) => {
    buyerOut += d.toString();
    let nl: number;
    while ((nl = buyerOut.indexOf('\n')) >= 0) {
      const [at, ms] = buyerOut.slice(0, nl).split(' ').map(Number);
      buyerOut = buyerOut.slice(nl + 1);
      searches.push({ at: at! - performance.timeOrigin, ms: ms! });
    }
  });
  const buyerDone = new Promise((r) => buyer.once('exit', r));
  for (let round = 1; round <= ROUNDS; round++) {
    say(`round ${round} of ${ROUNDS}${round === ROUNDS && KILLS > 0 ? ` (${KILLS} SIGKILLs)` : ''}`);
    await burstRound(round === ROUNDS ? KILLS : 0);
  }
  buyer.kill('SIGTERM');
  await buyerDone;

  /** One burst beside other sellers' writes and the buyer, after BUYER_ALONE_MS of the buyer alone; its figures. */
  async function burstRound(killCount: number): Promise<void> {
    const roundStart = performance.now();
    await sleep(BUYER_ALONE_MS);

    // ---- 3. the burst, beside other sellers' writes ----
    const { rows: burstRows } = await pool.query<{ sku_id: number; price: number }>(
      `SELECT sku_id, price FROM listings WHERE seller_id = $1 AND deleted_at IS NULL AND match_status = 'matched' ORDER BY sku_id`,
      [big.seller_id],
    );
    const newPrice = new Map(burstRows.map((l) => [l.sku_id, l.price > 100 ? l.price - 1 : l.price + 1]));
    const others = await startLiveWrites({
      databaseUrl: env.DATABASE_URL,
      pool,
      es,
      alias: index.alias,
      rate: Number(values.rate),
      sampleEvery: 1,
      excludeSeller: big.seller_id,
      log,
    });
    const burstStart = performance.now();
    // --hold-indexer: the indexer paused (SIGSTOP) while the API commits, so the buyer's p99 then
    // is the seller's writes alone, and the drain after them the indexer's alone.
    if (values['hold-indexer']) indexer.child?.kill('SIGSTOP');
    const batchesBefore = batches.length;
    const kills = (async () => {
      for (let k = 1; k <= killCount; k++) {
        await sleep(burstStart + k * KILL_EVERY_MS - performance.now());
        await stopIndexer('SIGKILL');
        log(`indexer SIGKILLed ${((performance.now() - burstStart) / 1000).toFixed(1)} s into the burst; started again`);
        startIndexer();
      }
    })();
    const calls: number[][] = [];
    for (let i = 0; i < burstRows.length; i += CALL_ITEMS) calls.push(burstRows.slice(i, i + CALL_ITEMS).map((l) => l.sku_id));
    let next = 0;
    // The skus of the calls answered last: their listings are committed last.
    const lastCalls: number[][] = [];
    await Promise.all(
      Array.from({ length: CALLS_AT_ONCE }, async () => {
        while (next < calls.length) {
          const skus = calls[next++]!;
          const res = await fetch(`${sellerBase}/listings/bulk`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ items: skus.map((skuId) => ({ op: 'upsert', skuId, price: newPrice.get(skuId) })) }),
          });
          if (res.status !== 200) throw new Error(`POST /listings/bulk: HTTP ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
          lastCalls.push(skus);
          if (lastCalls.length > CALLS_AT_ONCE) lastCalls.shift();
        }
      }),
    );
    const writtenS = (performance.now() - burstStart) / 1000;
    if (values['hold-indexer']) indexer.child?.kill('SIGCONT');
    log(`burst written: ${burstRows.length} listings in ${writtenS.toFixed(1)} s = ${Math.round(burstRows.length / writtenS)} items/s; ${load()}`);

    // The burst is visible when a search finds every repriced listing at its new price. The indexer
    // drains in commit order, so each round asks for the head of what is left and for the last
    // calls' listings (a few thousand ids, not the whole burst: the polling must not load
    // Elasticsearch more than a buyer would); once those are in, the rest is asked for as well.
    const ids = burstRows.map((l) => docId.native(big.seller_id, l.sku_id));
    const want = new Map(burstRows.map((l) => [docId.native(big.seller_id, l.sku_id), newPrice.get(l.sku_id)]));
    const tail = new Set(lastCalls.flat().map((sku) => docId.native(big.seller_id, sku)));
    let left = ids;
    let visibleS = NaN;
    let reported = 0;
    while (left.length > 0) {
      const tailLeft = left.filter((id) => tail.has(id));
      const asked = tailLeft.length > 0 ? [...new Set([...left.slice(0, VISIBLE_HEAD), ...tailLeft])] : left;
      const still = new Set(await notYetPriced(es, index.alias, want, asked));
      const asking = new Set(asked);
      left = left.filter((id) => !asking.has(id) || still.has(id));
      const s = (performance.now() - burstStart) / 1000;
      if (left.length === 0) visibleS = s;
      else await sleep(500);
      if (s - reported >= 10) {
        reported = s;
        log(`${left.length} listings not visible yet`);
      }
      if (s > 600 + burstRows.length / 100) throw new Error(`burst not visible after ${s.toFixed(0)} s: ${left.length} listings behind`);
    }
    await kills;
    const duringEnd = performance.now();
    const drained = batches.slice(batchesBefore);
    const o = await others.stop();

    // ---- 4. figures ----
    const drainRate = burstRows.length / visibleS;
    const target = burstRows.length / (0.5 * rebuildRate) + 5;
    say(
      `burst: seller ${big.seller_id} (${burstRows.length} listings) repriced in ${writtenS.toFixed(1)} s through POST /listings/bulk; ` +
        `last change visible ${visibleS.toFixed(1)} s after the first write (target <= ${target.toFixed(1)} s); ${load()}`,
    );
    say(
      `live drain ${Math.round(drainRate)} listings/s = ${(drainRate / rebuildRate).toFixed(2)} of the rebuild's ${Math.round(rebuildRate)} listings/s (target >= 0.5)`,
    );
    // Where the batches' time went while the burst drained (reads overlap the bulk in flight).
    const steps: Record<string, number> = {};
    for (const b of drained) for (const [k, v] of Object.entries(b.steps ?? {})) steps[k] = (steps[k] ?? 0) + v;
    const wall = drained.reduce((a, b) => a + b.ms, 0);
    say(
      `batches while draining: ${drained.length}, ${drained.reduce((a, b) => a + b.changes, 0)} changes, ${drained.reduce((a, b) => a + b.docs, 0)} docs, ` +
        `${(wall / 1000).toFixed(1)} s; steps (s): ${Object.entries(steps)
          .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)}`)
          .join(', ')}`,
    );
    say(`other sellers during the burst: ${lagLine(o)} (target p99 <= 2000 ms)`);
    const p99 = (xs: { ms: number }[]) =>
      pct(
        xs.map((s) => s.ms).sort((a, b) => a - b),
        0.99,
      );
    const before = searches.filter((s) => s.at >= roundStart && s.at < burstStart);
    const during = searches.filter((s) => s.at >= burstStart && s.at < duringEnd);
    say(
      `buyer search p99: before ${p99(before).toFixed(0)} ms (${before.length}), during ${p99(during).toFixed(0)} ms (${during.length}) = ` +
        `${(p99(during) / p99(before)).toFixed(2)}x (target <= 1.5x)`,
    );
    // Which part of the burst slows the buyer: the API taking the bulk calls (the indexer draining
    // meanwhile), or the indexer's drain alone after the last call.
    const committedAt = burstStart + writtenS * 1000;
    const whileWriting = during.filter((s) => s.at < committedAt);
    const afterWriting = during.filter((s) => s.at >= committedAt);
    const part = (xs: { ms: number }[]) => (xs.length === 0 ? 'none' : `p99 ${p99(xs).toFixed(0)} ms (${xs.length})`);
    say(`buyer search while the API takes the burst: ${part(whileWriting)}; after, while the indexer drains: ${part(afterWriting)}`);
    // No loss: every listing of the burst equals PostgreSQL (the other sellers' are in lagLine).
    const { rows: now } = await pool.query<{ sku_id: number; price: number }>(
      `SELECT sku_id, price FROM listings WHERE seller_id = $1 AND deleted_at IS NULL AND match_status = 'matched'`,
      [big.seller_id],
    );
    const pgPrice = new Map(now.map((l) => [docId.native(big.seller_id, l.sku_id), l.price]));
    const lost = (await notYetPriced(es, index.alias, pgPrice, ids)).length;
    say(
      `no loss: ${ids.length - lost} of ${ids.length} burst listings and ${o.checked - o.differ} of ${o.checked} other changed listings equal PostgreSQL; ${killCount} SIGKILLs`,
    );
  }
} finally {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await stopIndexer('SIGTERM');
  await es.indices.delete({ index: `${prefix}*` }, { ignore: [404] }).catch(() => undefined);
  await pool.end().catch(() => undefined);
  await es.close();
  if (world.created && !values.keep) await world.drop();
  console.log(`\n${summary.join('\n')}`);
}
