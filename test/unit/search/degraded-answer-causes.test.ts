import { afterEach, describe, expect, it } from 'vitest';
import { errors } from '@elastic/elasticsearch';
import { createBuyerService } from '../../../src/search/buyer-service.js';
import { createDegradedMode, type DegradedMode } from '../../../src/search/degraded/mode.js';
import type { BuyerReads } from '../../../src/search/reads.js';
import { offlineInfra } from '../../support/offline-infra.js';

// Every degraded answer is counted by why the index did not answer (the breaker kept the request
// from it, it timed out, it failed otherwise) and by what answered instead (the last-good cache,
// PostgreSQL), so a dashboard can tell an outage from a slow cluster.

let mode: DegradedMode | undefined;
afterEach(() => mode?.stop());

function setup() {
  let behaviour: 'ok' | 'hang' | 'es-timeout' | 'fail' = 'ok';
  const productPage = async (id: number) => {
    if (behaviour === 'hang') return new Promise<never>(() => undefined);
    if (behaviour === 'es-timeout') throw new errors.TimeoutError('Request timed out');
    if (behaviour === 'fail') throw new Error('shard failure');
    return { product: { productId: id } } as never;
  };
  const primary = { productPage } as unknown as BuyerReads;
  const fallback = { productPage: async (id: number) => ({ product: { productId: id }, fromPg: true }) as never } as unknown as BuyerReads;
  const deps = offlineInfra();
  mode = createDegradedMode(deps, { watch: { enabled: false }, queryTimeoutMs: 30, breaker: { failureThreshold: 3 }, fallbackMemo: { ttlMs: 1 } });
  const service = createBuyerService(deps, mode, { primary, fallback });
  return { mode, service, set: (b: typeof behaviour) => (behaviour = b) };
}

describe('degraded answers by cause', () => {
  it('counts a timeout, an index error and an open breaker, each by what answered', async () => {
    const { mode: m, service, set } = setup();
    const q = { limit: 50, offset: 0 } as never;
    await service.productPage(1, q); // kept in the last-good cache
    set('hang');
    expect((await service.productPage(1, q)).degraded).toBe(true); // cache
    set('es-timeout');
    expect((await service.productPage(2, q)).degraded).toBe(true); // fallback
    set('fail');
    expect((await service.productPage(3, q)).degraded).toBe(true); // fallback; the breaker opens
    expect(m.active).toBe(true);
    expect((await service.productPage(1, q)).degraded).toBe(true); // cache, not asked
    expect((await service.productPage(4, q)).degraded).toBe(true); // fallback, not asked
    expect(m.counters().answers).toEqual({
      timeout: { cache: 1, fallback: 1 },
      index_error: { cache: 0, fallback: 1 },
      overload: { cache: 0, fallback: 0 },
      breaker_open: { cache: 1, fallback: 1 },
    });
    expect(m.counters()).toMatchObject({ cacheHits: 2, fallbacks: 3, indexFailures: 3, indexAnswers: 1 });
  });
});
