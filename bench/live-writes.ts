// A marketplace that is never quiet: sellers' repricing tools change listings all day. This
// writer commits `rate` listing changes a second through PostgreSQL, each in its own small
// transaction on a fixed schedule (one listing's price moved by one minor unit, as a repricer
// does), while the live indexer carries them to Elasticsearch. A sample of the writes is
// followed until a search through the alias shows the new price: the commit-to-visible lag.
// The poller asks for the sampled offers' prices as a search sees them (indexed-prices.ts).
import type { Client } from '@elastic/elasticsearch';
import { createPool, type Pool } from '../src/db/pool.js';
import { docId } from '../src/search/documents/model.js';
import { pct, sleep } from './world.js';
import { indexedPrices, notYetPriced } from './indexed-prices.js';

export interface LiveWritesOptions {
  databaseUrl: string;
  pool: Pool;
  es: Client;
  alias: string;
  /** Listing changes committed per second. */
  rate: number;
  /** Follow one write in this many to visibility (1: every write). */
  sampleEvery?: number;
  pollMs?: number;
  /** Leave this seller's listings alone (the one a burst is from). */
  excludeSeller?: number;
  log: (m: string) => void;
}

export interface LiveWritesResult {
  rate: number;
  writes: number;
  seconds: number;
  failed: number;
  /** Writes that started more than 100 ms after their slot (the writer fell behind). */
  late: number;
  /** Sorted commit-to-visible lags of the sampled writes, ms. */
  lagMs: number[];
  /** Sampled writes not visible 30 s after the writer stopped. */
  neverSeen: number;
  /** Listings the writer changed, compared with the index once it stopped (nothing lost). */
  checked: number;
  /** Of those, offers whose indexed price is not PostgreSQL's 30 s after the writer stopped. */
  differ: number;
}

export interface LiveWrites {
  stop(): Promise<LiveWritesResult>;
}

export function lagLine(r: LiveWritesResult): string {
  const l = r.lagMs;
  return (
    `${r.writes} changes in ${r.seconds.toFixed(0)} s (${(r.writes / r.seconds).toFixed(0)}/s, ${r.late} late, ${r.failed} failed); ` +
    `commit-to-visible of ${l.length} sampled: p50 ${pct(l, 0.5).toFixed(0)} / p99 ${pct(l, 0.99).toFixed(0)} / max ${pct(l, 1).toFixed(0)} ms, ` +
    `${r.neverSeen} never visible; index equals PostgreSQL for ${r.checked - r.differ} of ${r.checked} changed listings`
  );
}

export async function startLiveWrites(o: LiveWritesOptions): Promise<LiveWrites> {
  const sampleEvery = o.sampleEvery ?? 5;
  const pollMs = o.pollMs ?? 100;
  const { rows: picks } = await o.pool.query<{ seller_id: number; sku_id: number }>(
    `SELECT seller_id, sku_id FROM listings WHERE deleted_at IS NULL AND match_status = 'matched' AND seller_id IS DISTINCT FROM $1
      ORDER BY random() LIMIT 200000`,
    [o.excludeSeller ?? null],
  );
  if (picks.length === 0) throw new Error('no live listings to change');
  const writer = createPool(o.databaseUrl, 8);
  const pending = new Map<string, { price: number; committedAt: number }>();
  const changed = new Map<string, { sellerId: number; skuId: number }>();
  const lagMs: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let writes = 0;
  let failed = 0;
  let late = 0;
  let stopping = false;
  let stoppedAt = Infinity;

  const poller = (async () => {
    while (!stopping || (pending.size > 0 && performance.now() - stoppedAt < 30_000)) {
      const started = performance.now();
      if (pending.size > 0) {
        try {
          const got = await indexedPrices(o.es, o.alias, [...pending.keys()]);
          const at = performance.now();
          for (const [id, price] of got) {
            const p = pending.get(id);
            if (p && price === p.price) {
              lagMs.push(at - p.committedAt);
              pending.delete(id);
            }
          }
        } catch (err) {
          o.log(`lag poll failed: ${(err as Error).message}`);
        }
      }
      await sleep(Math.max(0, pollMs - (performance.now() - started)));
    }
  })();

  const t0 = performance.now();
  const scheduler = (async () => {
    for (let i = 0; !stopping; i++) {
      const wait = t0 + (i * 1000) / o.rate - performance.now();
      if (wait > 0) await sleep(wait);
      else if (wait < -100) late += 1;
      if (stopping) break;
      const { seller_id: sellerId, sku_id: skuId } = picks[i % picks.length]!;
      const sampled = i % sampleEvery === 0;
      const p: Promise<void> = (async () => {
        try {
          const { rows } = await writer.query<{ price: number }>(
            `UPDATE listings SET price = CASE WHEN price > 100 THEN price - 1 ELSE price + 1 END
              WHERE seller_id = $1 AND sku_id = $2 RETURNING price`,
            [sellerId, skuId],
          );
          writes += 1;
          changed.set(docId.native(sellerId, skuId), { sellerId, skuId });
          if (sampled && rows[0]) pending.set(docId.native(sellerId, skuId), { price: rows[0].price, committedAt: performance.now() });
        } catch (err) {
          failed += 1;
          o.log(`write failed: ${(err as Error).message}`);
        }
      })().finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  })();

  return {
    async stop() {
      stopping = true;
      await scheduler;
      await Promise.all([...inFlight]);
      const seconds = (performance.now() - t0) / 1000;
      stoppedAt = performance.now();
      await poller;
      await writer.end();
      lagMs.sort((a, b) => a - b);
      let differ = await mismatches(o, changed);
      for (const until = performance.now() + 30_000; differ > 0 && performance.now() < until; differ = await mismatches(o, changed)) await sleep(500);
      return { rate: o.rate, writes, seconds, failed, late, lagMs, neverSeen: pending.size, checked: changed.size, differ };
    },
  };
}

/** Changed listings whose offer in the index (as a search sees it) does not carry PostgreSQL's price. */
async function mismatches(o: LiveWritesOptions, changed: Map<string, { sellerId: number; skuId: number }>): Promise<number> {
  const pairs = [...changed.values()];
  const { rows } = await o.pool.query<{ seller_id: number; sku_id: number; price: number }>(
    `SELECT l.seller_id, l.sku_id, l.price FROM listings l
       JOIN unnest($1::int[], $2::int[]) AS c(seller_id, sku_id) USING (seller_id, sku_id)`,
    [pairs.map((p) => p.sellerId), pairs.map((p) => p.skuId)],
  );
  const want = new Map(rows.map((r) => [docId.native(r.seller_id, r.sku_id), r.price]));
  return (await notYetPriced(o.es, o.alias, want, [...changed.keys()])).length;
}
