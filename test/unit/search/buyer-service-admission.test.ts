import { afterEach, describe, expect, it } from 'vitest';
import { searchQuerySchema, productQuerySchema } from '../../../src/contract/buyer.js';
import { createBuyerService, type BuyerService } from '../../../src/search/buyer-service.js';
import { createDegradedMode } from '../../../src/search/degraded/mode.js';
import type { BuyerReads } from '../../../src/search/reads.js';
import { offlineInfra } from '../../support/offline-infra.js';

// Past capacity the service answers fast instead of queueing: at most `max` searches in flight to
// the index, one more waits `maxWaitMs` for a slot and is then answered from the last-good cache
// (degraded) or 503 with Retry-After 1, and never from PostgreSQL. Product pages and cart lookups
// are not held back by searches. No servers: the reads are functions a test releases by hand.

let service: BuyerService | undefined;
afterEach(() => service?.mode.stop());

function setup(admission: { max: number; maxWaitMs: number }) {
  const held: (() => void)[] = [];
  let pgSearches = 0;
  const hold = <T>(v: T) => new Promise<T>((resolve) => held.push(() => resolve(v)));
  const page = { items: [], facets: {}, nextAfter: null };
  const primary = {
    search: () => hold(page),
    productPage: async (id: number) => ({ offers: [], product: { productId: id } }),
    lookup: async () => [],
  } as unknown as BuyerReads;
  const fallback = {
    ...primary,
    search: async () => {
      pgSearches += 1;
      return page;
    },
  } as unknown as BuyerReads;
  const infra = offlineInfra();
  const mode = createDegradedMode(infra, { watch: { enabled: false }, admission });
  service = createBuyerService(infra, mode, { primary, fallback });
  return { service, mode, releaseAll: () => held.splice(0).forEach((r) => r()), pgSearches: () => pgSearches };
}

const q = (keyword: string) => searchQuerySchema.parse({ keyword });

describe('search admission', () => {
  it('lets `max` searches in flight, sheds the next after its wait (cache, else 503), never asks PostgreSQL', async () => {
    const { service: s, mode, releaseAll, pgSearches } = setup({ max: 2, maxWaitMs: 30 });
    const inFlight = [s.search(q('a'), null), s.search(q('b'), null)];
    await new Promise((r) => setTimeout(r, 5));
    expect(mode.status().admission.running).toBe(2);
    // One waits its 30 ms and gets 503 with Retry-After 1 (nothing cached for it)...
    const started = Date.now();
    const busy = await s.search(q('c'), null).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(busy).toMatchObject({ kind: 'search-unavailable', retryAfterSeconds: 1 });
    releaseAll();
    await Promise.all(inFlight);
    // ...and once 'a' has a good answer, a shed 'a' gets it, flagged degraded.
    const again = [s.search(q('x'), null), s.search(q('y'), null)];
    await new Promise((r) => setTimeout(r, 5));
    const shed = await s.search(q('a'), null);
    expect(shed.degraded).toBe(true);
    releaseAll();
    await Promise.all(again);
    expect(pgSearches()).toBe(0);
    expect(mode.active).toBe(false);
    expect(mode.counters()).toMatchObject({ shed: 2, unavailable: 1, cacheHits: 1, indexFailures: 0 });
  });

  it('hands the slot to a waiting search as one finishes, so a short queue is answered fresh', async () => {
    const { service: s, releaseAll } = setup({ max: 1, maxWaitMs: 1000 });
    const first = s.search(q('a'), null);
    const second = s.search(q('b'), null);
    await new Promise((r) => setTimeout(r, 5));
    releaseAll();
    await first;
    await new Promise((r) => setTimeout(r, 5));
    releaseAll();
    expect((await second).degraded).toBe(false);
  });

  it('does not hold product pages or cart lookups behind searches', async () => {
    const { service: s, releaseAll } = setup({ max: 1, maxWaitMs: 10_000 });
    const search = s.search(q('a'), null);
    const waiting = s.search(q('b'), null);
    const product = await s.productPage(7, productQuerySchema.parse({}));
    expect(product).toMatchObject({ degraded: false, data: { product: { productId: 7 } } });
    releaseAll();
    await search;
    await new Promise((r) => setTimeout(r, 5));
    releaseAll();
    await waiting;
  });
});
