import { afterEach, describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { DomainError } from '../../../../src/contract/errors.js';
import { createDegradedMode, type DegradedMode } from '../../../../src/search/degraded/mode.js';
import type { DegradedOverrides } from '../../../../src/search/degraded/options.js';
import { offlineInfra } from '../../../support/offline-infra.js';

// Degraded Mode answers a request without the index: the last-good answer (warm part first),
// else one shared, briefly remembered PostgreSQL read, else 503 with Retry-After. No servers: the
// cluster watcher is off and the fallback is a plain function.

let mode: DegradedMode | undefined;
afterEach(() => mode?.stop());

function degraded(overrides: DegradedOverrides = {}): DegradedMode {
  mode = createDegradedMode(offlineInfra(), { watch: { enabled: false }, ...overrides });
  return mode;
}

describe('Degraded Mode answers without the index', () => {
  it('keeps a good index answer and gives it back, flagged degraded, without asking PostgreSQL', async () => {
    const m = degraded();
    const permit = m.tryAcquire()!;
    const good = m.indexAnswered(permit, 'search {"a":1}', { items: [1, 2] });
    expect(good).toMatchObject({ degraded: false, data: { items: [1, 2] } });
    let asked = 0;
    const answer = await m.answer('search {"a":1}', async () => ++asked, 'breaker_open');
    expect(answer.degraded).toBe(true);
    expect(answer.json()).toBe('{"items":[1,2]}');
    expect(answer.data).toEqual({ items: [1, 2] });
    expect(asked).toBe(0);
    expect(m.counters()).toMatchObject({ indexAnswers: 1, cacheHits: 1, fallbacks: 0, fallbackQueries: 0 });
    expect(m.counters().answers.breaker_open).toEqual({ cache: 1, fallback: 0 });
  });

  it('prefers the warm part, and an index answer to a warm request refreshes the warm entry', async () => {
    const m = degraded();
    m.indexAnswered(m.tryAcquire()!, 'k', 'general');
    expect(m.keepWarm('k', 'warm')).toBe(true);
    expect(m.cached('k')).toEqual({ warm: '"warm"', general: '"general"' });
    expect((await m.answer('k', async () => 'pg', 'timeout')).data).toBe('warm');
    m.indexAnswered(m.tryAcquire()!, 'k', 'fresh');
    expect(m.cached('k')).toEqual({ warm: '"fresh"', general: '"general"' });
  });

  it("keeps suggestions in a part of their own: a burst of typing does not evict the searches' answers", async () => {
    const m = degraded({ cache: { maxEntries: 3 }, suggestCache: { maxEntries: 2 } });
    for (const q of ['s', 'se', 'sea']) m.indexAnswered(m.tryAcquire()!, `search {"keyword":"${q}"}`, q);
    for (let n = 1; n <= 50; n++) m.indexAnswered(m.tryAcquire()!, `suggest [{"q":"${'x'.repeat(n)}"}]`, n);
    expect(m.status().cache.entries).toBe(3);
    expect(m.status().suggestCache.entries).toBe(2);
    expect(m.cached(`suggest [{"q":"${'x'.repeat(49)}"}]`).general).toBe('49');
    expect(m.cached(`suggest [{"q":"${'x'.repeat(48)}"}]`).general).toBeUndefined();
    expect((await m.answer('search {"keyword":"s"}', async () => 'pg', 'breaker_open')).data).toBe('s');
    expect((await m.answer(`suggest [{"q":"${'x'.repeat(50)}"}]`, async () => 0, 'breaker_open')).data).toBe(50);
    expect((await m.answer('suggest [{"q":"x"}]', async () => 0, 'breaker_open')).data).toBe(0);
    const registry = new Registry();
    m.registerMetrics(registry);
    expect(await registry.getSingleMetricAsString('degraded_suggest_cache_entries')).toMatch(/degraded_suggest_cache_entries 2$/m);
  });

  it('shares one PostgreSQL read among identical concurrent misses and reuses its answer briefly', async () => {
    const m = degraded();
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const read = (productId: number) => async () => {
      reads += 1;
      await gate;
      return { productId };
    };
    const waiting = [
      m.answer('product [1]', read(1), 'timeout'),
      m.answer('product [1]', read(1), 'index_error'),
      m.answer('product [2]', read(2), 'timeout'),
    ];
    release();
    const answers = await Promise.all(waiting);
    expect(answers.map((a) => a.data)).toEqual([{ productId: 1 }, { productId: 1 }, { productId: 2 }]);
    expect(reads).toBe(2);
    const again = await m.answer('product [1]', read(1), 'breaker_open');
    expect(again.json()).toBe('{"productId":1}');
    expect(reads).toBe(2);
    expect(m.counters()).toMatchObject({ fallbacks: 4, fallbackQueries: 2, cacheHits: 0 });
    expect(m.counters().answers).toEqual({
      breaker_open: { cache: 0, fallback: 1 },
      timeout: { cache: 0, fallback: 2 },
      index_error: { cache: 0, fallback: 1 },
      overload: { cache: 0, fallback: 0 },
    });
  });

  it('answers 503 with Retry-After when PostgreSQL fails, and passes a DomainError through', async () => {
    const m = degraded({ retryAfterSeconds: 7 });
    const err = await m
      .answer(
        'search {}',
        async () => {
          throw new Error('connection refused');
        },
        'breaker_open',
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'search-unavailable', retryAfterSeconds: 7 });
    const own = new DomainError('invalid-cursor', 'bad cursor');
    await expect(
      m.answer(
        'search {"x":1}',
        async () => {
          throw own;
        },
        'breaker_open',
      ),
    ).rejects.toBe(own);
    expect(m.counters()).toMatchObject({ fallbackFailures: 1, unavailable: 1, fallbacks: 0 });
  });

  it('opens after repeated index failures, counts them, and reports it in the metrics text', async () => {
    const m = degraded({ breaker: { failureThreshold: 2 } });
    m.indexFailed(m.tryAcquire()!, 'timeout');
    expect(m.active).toBe(false);
    m.indexFailed(m.tryAcquire()!, 'timeout');
    expect(m.active).toBe(true);
    expect(m.tryAcquire()).toBeNull();
    expect(m.counters()).toMatchObject({ indexFailures: 2, opens: 1 });
    const registry = new Registry();
    m.registerMetrics(registry);
    const text = await registry.metrics();
    expect(text).toContain('degraded_mode 1\n');
    expect(text).toContain('search_breaker_opens_total 1\n');
    expect(text).toContain('search_breaker_state{state="open"} 1\n');
    expect(text).toContain('degraded_answers_total{cause="breaker_open",answered_from="cache"} 0\n');
  });

  it('sheds a search without the index: the last-good answer, else 503 with Retry-After 1, never PostgreSQL', async () => {
    const m = degraded();
    m.indexAnswered(m.tryAcquire()!, 'search {"k":1}', { items: [] });
    const kept = m.shed<{ items: unknown[] }>('search {"k":1}');
    expect(kept).toMatchObject({ degraded: true, data: { items: [] } });
    expect(() => m.shed('search {"k":2}')).toThrow(expect.objectContaining({ kind: 'search-unavailable', retryAfterSeconds: 1 }));
    expect(m.counters()).toMatchObject({ shed: 2, cacheHits: 1, unavailable: 1, fallbackQueries: 0 });
    const registry = new Registry();
    m.registerMetrics(registry);
    const text = await registry.metrics();
    expect(text).toContain('buyer_search_shed_total 2\n');
    expect(text).toContain('degraded_answers_total{cause="overload",answered_from="cache"} 1\n');
  });

  it('counts a timeout under load apart and stays closed', async () => {
    const m = degraded({ breaker: { failureThreshold: 1 } });
    const slow = m.tryAcquire()!;
    // Another query is answered after the slow one began (a later millisecond of the mode's clock).
    await new Promise((r) => setTimeout(r, 5));
    m.indexAnswered(m.tryAcquire()!, 'k', 1);
    m.indexFailed(slow, 'TimeoutError', true);
    expect(m.active).toBe(false);
    expect(m.counters()).toMatchObject({ indexFailures: 1, overloadTimeouts: 1, opens: 0 });
  });
});

describe('Degraded Mode keeps the warm set for the warmer', () => {
  it('keeps a warm answer only while healthy, prunes to the finished pass and counts as it goes', () => {
    const m = degraded({ breaker: { failureThreshold: 1 } });
    expect(m.keepWarm('a', 1)).toBe(true);
    expect(m.keepWarm('b', 2)).toBe(true);
    m.warmFailed();
    m.warmPassDone(new Set(['b']));
    expect(m.warmKeys()).toEqual(['b']);
    expect(m.status().warmCache.entries).toBe(1);
    m.indexFailed(m.tryAcquire()!, 'connection refused');
    expect(m.active).toBe(true);
    expect(m.keepWarm('c', 3)).toBe(false);
    expect(m.cached('c')).toEqual({ warm: undefined, general: undefined });
    expect(m.counters()).toMatchObject({ warmRequests: 2, warmFailures: 1, warmPasses: 1 });
  });

  it('hands out its counters as a copy: a caller cannot change them', () => {
    const m = degraded();
    m.counters().warmPasses = 99;
    m.counters().answers.timeout.cache = 99;
    expect(m.counters()).toMatchObject({ warmPasses: 0, answers: { timeout: { cache: 0 } } });
  });

  it('takes a look at the cluster from outside the watcher: an unreachable cluster turns Degraded Mode on', () => {
    const m = degraded();
    m.observe({ kind: 'unreachable', detail: 'forced' });
    expect(m.active).toBe(true);
    expect(m.status().breaker).toMatchObject({ state: 'open', reason: 'cluster unreachable: forced', opens: 1 });
    expect(m.counters().opens).toBe(1);
  });
});
