import type { Scenario } from './scenario.js';
import { ApiError, createBuyerClient, type SearchParams } from '../../clients/typescript/src/index.js';

// A steady buyer load against a running API: searches with filters that follow their cursors,
// product pages and 500-pair cart lookups, each kind in its own closed loop. It counts what a
// storefront would see: 5xx answers, `degraded` answers, other failures, and the slowest answer.

export interface LoadStats {
  requests: number;
  fiveXx: number;
  degraded: number;
  /** Anything else that is not a 200 (network errors included), with a sample. */
  otherFailures: number;
  samples: string[];
  slowestMs: number;
}

export interface BuyerLoad {
  /** Counts since the last reset. */
  stats(): LoadStats;
  reset(): void;
  /**
   * Two reads of each kind at once, counted like the loops' (call it just before a fault, so that
   * requests are in flight as it happens, whatever the loops' pauses).
   */
  volley(): Promise<void>;
  stop(): Promise<LoadStats>;
}

/** When an answer came, to line a sample up with the server's log and the test's own steps. */
const at = () => new Date().toISOString();

const emptyStats = (): LoadStats => ({ requests: 0, fiveXx: 0, degraded: 0, otherFailures: 0, samples: [], slowestMs: 0 });

/**
 * `pauseMs` between one answer and the next request of a loop: a steady load, not a saturating one.
 * The pause sets what the load costs (at 20 ms the three loops kept two cores busy beside a
 * three-node cluster, and cheaper reads only raised their rate); the moments a fault can fail a
 * read are covered by `volley()`.
 */
export function startBuyerLoad(baseUrl: string, scenario: Scenario, pauseMs = 100): BuyerLoad {
  let stats = emptyStats();
  let running = true;
  const searches: SearchParams[] = [
    {},
    { sort: 'name_desc', limit: 10 },
    { condition: ['Near Mint', 'Damaged'] },
    { language: ['English', 'Japanese'], limit: 5 },
    { category: 'Magic: The Gathering', finish: ['Foil'] },
    { checkoutMode: 'manual' },
    { keyword: 'bolt' },
  ];
  const products = scenario.fixture.products.map((p) => p.productId);
  const pairs = scenario.fixture.listings.map((l) => ({ sellerId: l.sellerId, skuId: l.skuId }));

  // Every answer counts as the storefront saw it: no retries.
  const client = createBuyerClient({ baseUrl, timeoutMs: 30_000, retry: { maxRetries: 0 } });

  async function call<T>(what: string, pause: number, read: () => Promise<T & { degraded: boolean }>): Promise<T | null> {
    if (pause > 0) await new Promise((r) => setTimeout(r, pause));
    const t0 = performance.now();
    stats.requests += 1;
    try {
      const answer = await read();
      stats.slowestMs = Math.max(stats.slowestMs, performance.now() - t0);
      if (answer.degraded) {
        stats.degraded += 1;
        if (stats.samples.length < 5) stats.samples.push(`${at()} degraded ${what} after ${Math.round(performance.now() - t0)} ms`);
      }
      return answer;
    } catch (err) {
      stats.slowestMs = Math.max(stats.slowestMs, performance.now() - t0);
      if (err instanceof ApiError && err.status >= 500) stats.fiveXx += 1;
      else stats.otherFailures += 1;
      const status = err instanceof ApiError ? `${err.status} ${err.code} ` : '';
      if (stats.samples.length < 5) stats.samples.push(`${at()} ${status}${what}: ${(err as Error).message.slice(0, 200)}`);
      return null;
    }
  }

  /** The i-th read of each kind, each request after `pause` ms. */
  const reads = [
    async (i: number, pause: number) => {
      const q = searches[i % searches.length]!;
      const first = await call(`search ${JSON.stringify(q)}`, pause, () => client.search(q));
      // The next page through the signed cursor, as a storefront's "more" does.
      const cursor = first?.nextCursor;
      if (cursor) await call(`search ${JSON.stringify(q)} page 2`, pause, () => client.search({ ...q, cursor }));
    },
    async (i: number, pause: number) => {
      const productId = products[(i * 7) % products.length]!;
      await call(`product ${productId}`, pause, () => client.product(productId));
    },
    async (i: number, pause: number) => {
      const start = (i * 97) % Math.max(1, pairs.length - 500);
      await call(`lookup of 500 from ${start}`, pause, () => client.lookupLines(pairs.slice(start, start + 500)));
    },
  ];
  const loops = reads.map(async (read) => {
    for (let i = 0; running; i++) await read(i, pauseMs);
  });
  let volleys = 0;
  const done = Promise.all(loops);

  return {
    stats: () => ({ ...stats, samples: [...stats.samples] }),
    reset: () => {
      stats = emptyStats();
    },
    volley: async () => {
      const v = volleys++;
      await Promise.all(reads.flatMap((read) => [read(1000 + 2 * v, 0), read(1001 + 2 * v, 0)]));
    },
    stop: async () => {
      running = false;
      await done;
      return stats;
    },
  };
}

/** One line for the test log. */
export function describeLoad(s: LoadStats): string {
  return `${s.requests} buyer reads, ${s.fiveXx} 5xx, ${s.degraded} degraded, ${s.otherFailures} other failures, slowest ${Math.round(s.slowestMs)} ms`;
}
