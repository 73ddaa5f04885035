import type { Client } from '@elastic/elasticsearch';
import type { Registry } from 'prom-client';
import type { Infra } from '../../config/infra.js';
import { DomainError } from '../../contract/errors.js';
import type { Logger } from '../../lib/logger.js';
import { failoverRetries } from '../../es/client.js';
import { JsonAnswer, failureReason, type Answer } from './answer.js';
import { CircuitBreaker, type BreakerState, type Observation, type Permit } from './breaker.js';
import { LastGoodCache, methodOfKey } from './cache.js';
import { watchCluster, type ClusterView, type ClusterWatch } from './cluster-watch.js';
import { sharedFallback } from './fallback.js';
import { ConcurrencyLimiter } from './limiter.js';
import { emptyDegradedMetrics, registerDegradedMetrics, type DegradedCause, type DegradedMetrics } from './metrics.js';
import { degradedOptions, type DegradedOptions, type DegradedOverrides } from './options.js';

// One Degraded Mode per process (built by createServices), the one owner of its policy: the
// breaker and the cluster watcher feeding it, the last-good cache (general and warm parts), the
// shared PostgreSQL fallback and the counters. The buyer service asks it for a permit to try the
// index, reports the outcome, and otherwise takes its answer; the health routes are handed the
// same object, so /readyz and /metrics report the state the buyer reads act on.

export interface DegradedMode {
  readonly options: DegradedOptions;
  readonly breaker: CircuitBreaker;
  readonly cache: LastGoodCache;
  /** The warm set's reserved part of the last-good cache (same keys as live requests). */
  readonly warmCache: LastGoodCache;
  /** The suggestions' part of the last-good cache (`cache` keeps the other reads'). */
  readonly suggestCache: LastGoodCache;
  readonly metrics: DegradedMetrics;
  /** The client buyer queries use: short timeout, no retry. */
  readonly searchClient: Client;
  readonly watch: ClusterWatch | null;
  /** Degraded Mode is on (the breaker is open or half-open). */
  readonly active: boolean;
  state(): BreakerState;
  cluster(): ClusterView;
  /** A permit to ask the index, or null when the request must be answered in Degraded Mode. */
  tryAcquire(): Permit | null;
  /** A good index answer to the request under `key`: the breaker hears of it, the last-good cache keeps it. */
  indexAnswered<T>(permit: Permit, key: string, data: T): Answer<T>;
  /**
   * The index query failed (not a DomainError: that is the request's own fault); `timedOut` when
   * it ran out of time. A timeout while the cluster answered other queries is overload: it does
   * not count toward Degraded Mode (the request itself is still answered without the index).
   */
  indexFailed(permit: Permit, reason: string, timedOut?: boolean): void;
  /** Searches' slots to the index (admission); a search that gets none in time is shed(). */
  readonly admission: ConcurrencyLimiter;
  /** The permit was not used: the query never reached the index. */
  release(permit: Permit): void;
  /**
   * A search the index could not take in time: the last-good answer to it (degraded), else 503
   * with Retry-After 1. Never the PostgreSQL fallback: under load it would only add load.
   */
  shed<T>(key: string): Answer<T>;
  /**
   * The answer without the index, flagged degraded: the last-good answer to the same request,
   * else the PostgreSQL fallback's (`fallback`, shared and bounded); when neither can answer,
   * DomainError('search-unavailable') with Retry-After. `cause` (why the index did not answer)
   * labels the count of degraded answers.
   */
  answer<T>(key: string, fallback: () => Promise<T>, cause: DegradedCause): Promise<Answer<T>>;
  /** Puts the mode's state and counters in the process's metrics registry (read when scraped). */
  registerMetrics(registry: Registry): void;
  stop(): void;
}

/** Logs each breaker transition once and counts the openings. */
function transitionLog(breaker: CircuitBreaker, metrics: DegradedMetrics, logger: Logger): () => void {
  let logged: BreakerState = 'closed';
  let lastOpens = 0;
  return () => {
    const snap = breaker.snapshot();
    metrics.opens += snap.opens - lastOpens;
    lastOpens = snap.opens;
    if (snap.state === logged) return;
    if (snap.state === 'open') logger.warn({ reason: snap.reason }, 'Degraded Mode on: search cluster unhealthy');
    else if (snap.state === 'closed') logger.info('Degraded Mode off: search cluster answers well again');
    else logger.info('Degraded Mode: probing the search cluster');
    logged = snap.state;
  };
}

export function createDegradedMode(deps: Pick<Infra, 'es' | 'index' | 'logger' | 'env'>, overrides: DegradedOverrides = {}): DegradedMode {
  const options = degradedOptions(deps.env, overrides);
  const log = deps.logger.child({ component: 'degraded-mode' });
  const breaker = new CircuitBreaker(options.breaker);
  const metrics = emptyDegradedMetrics();
  const cache = new LastGoodCache(options.cache);
  const warmCache = new LastGoodCache(options.warmCache);
  const suggestCache = new LastGoodCache(options.suggestCache);
  // Suggestions apart: a burst of typing cannot evict the searches' last-good answers.
  const liveCache = (key: string) => (methodOfKey(key) === 'suggest' ? suggestCache : cache);
  const fallback = sharedFallback({ memo: options.fallbackMemo, limiter: options.limiter }, metrics);
  const admission = new ConcurrencyLimiter(options.admission);
  // The last-good answer, counted by why the index did not give it. The warm part first: the
  // warmer keeps it current, the general part may hold an older answer.
  const lastGood = <T>(key: string, cause: DegradedCause): Answer<T> | undefined => {
    const cached = warmCache.getBytes(key) ?? liveCache(key).getBytes(key);
    if (cached === undefined) return undefined;
    metrics.cacheHits += 1;
    metrics.answers[cause].cache += 1;
    return new JsonAnswer<T>(true, { bytes: cached });
  };
  const note = transitionLog(breaker, metrics, log);
  const watch = options.watch.enabled
    ? watchCluster(
        deps.es.child({ maxRetries: 0 }),
        deps.index.alias,
        (o: Observation) => {
          breaker.observe(o);
          note();
        },
        options.watch,
      )
    : null;
  const cluster = (): ClusterView => watch?.view() ?? { status: 'unknown', detail: 'watcher disabled', checkedAt: null, latencyMs: null };

  return {
    options,
    breaker,
    cache,
    warmCache,
    suggestCache,
    metrics,
    // No retry on one node (a dead cluster must not cost a buyer twice the wait); on a cluster, a
    // refused connection moves on to the next node instead of failing the read (failoverRetries).
    searchClient: deps.es.child({ requestTimeout: options.queryTimeoutMs, maxRetries: failoverRetries(deps.es) }),
    watch,
    get active() {
      return breaker.degraded;
    },
    state: () => breaker.state,
    cluster,
    tryAcquire: () => {
      const p = breaker.tryAcquire();
      note();
      return p;
    },
    indexAnswered: (permit, key, data) => {
      breaker.success(permit);
      note();
      metrics.indexAnswers += 1;
      // Serialized once: the cache keeps the text the response is then built from.
      const json = JSON.stringify(data);
      // A warm request's answer replaces the warm entry, where live traffic cannot evict it.
      (warmCache.has(key) ? warmCache : liveCache(key)).setJson(key, json);
      return new JsonAnswer(false, { data, json });
    },
    indexFailed: (permit, reason, timedOut = false) => {
      const verdict = breaker.failure(permit, reason, timedOut);
      note();
      metrics.indexFailures += 1;
      if (verdict === 'overload') metrics.overloadTimeouts += 1;
    },
    admission,
    release: (permit) => breaker.release(permit),
    shed: <T>(key: string): Answer<T> => {
      metrics.shed += 1;
      const cached = lastGood<T>(key, 'overload');
      if (cached) return cached;
      metrics.unavailable += 1;
      throw new DomainError('search-unavailable', 'Search is busy; please retry shortly', undefined, 1);
    },
    answer: async <T>(key: string, read: () => Promise<T>, cause: DegradedCause): Promise<Answer<T>> => {
      const cached = lastGood<T>(key, cause);
      if (cached) return cached;
      try {
        const got = await fallback.read(key, read);
        metrics.fallbacks += 1;
        metrics.answers[cause].fallback += 1;
        return new JsonAnswer<T>(true, got);
      } catch (err) {
        if (err instanceof DomainError) throw err;
        metrics.fallbackFailures += 1;
        metrics.unavailable += 1;
        log.warn({ method: methodOfKey(key), err: failureReason(err) }, 'Degraded Mode: no cached answer and the PostgreSQL fallback failed');
        throw new DomainError('search-unavailable', 'Search is temporarily unavailable; please retry shortly', undefined, options.retryAfterSeconds);
      }
    },
    registerMetrics: (registry) =>
      registerDegradedMetrics(registry, metrics, () => ({
        state: breaker.state,
        cluster: cluster().status,
        cache: { entries: cache.entries, bytes: cache.bytes },
        warmCache: { entries: warmCache.entries, bytes: warmCache.bytes },
        suggestCache: { entries: suggestCache.entries, bytes: suggestCache.bytes },
        fallback: { running: fallback.limiter.running, waiting: fallback.limiter.waiting },
        admission: { running: admission.running, waiting: admission.waiting },
      })),
    stop: () => watch?.stop(),
  };
}
