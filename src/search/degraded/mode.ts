import type { Client } from '@elastic/elasticsearch';
import type { Registry } from 'prom-client';
import type { Infra } from '../../config/infra.js';
import { DomainError } from '../../contract/errors.js';
import type { Logger } from '../../lib/logger.js';
import { failoverRetries } from '../../es/client.js';
import { JsonAnswer, failureReason, type Answer } from './answer.js';
import { CircuitBreaker, type BreakerSnapshot, type BreakerState, type Observation, type Permit } from './breaker.js';
import { LastGoodCache, methodOfKey } from './cache.js';
import { watchCluster, type ClusterView } from './cluster-watch.js';
import { sharedFallback } from './fallback.js';
import { ConcurrencyLimiter } from './limiter.js';
import { emptyDegradedMetrics, registerDegradedMetrics, type DegradedCause, type DegradedMetrics } from './metrics.js';
import { degradedOptions, type DegradedOptions, type DegradedOverrides } from './options.js';

// One Degraded Mode per process (built by createServices), the one owner of its policy and its
// state: the breaker and the cluster watcher feeding it, the last-good cache (general, warm and
// suggestion parts), the shared PostgreSQL fallback, search admission and the counters. Nothing
// outside this file reaches them: the buyer service, the warmer and the health routes ask and tell
// it through the interfaces below, so every change of its state happens here.

/** Entries and bytes of a part of the last-good cache. */
interface CacheSize {
  entries: number;
  bytes: number;
}

/** What Degraded Mode reports of itself as of now (/readyz, /metrics, benches, tests). */
export interface DegradedStatus {
  breaker: BreakerSnapshot;
  cluster: ClusterView;
  cache: CacheSize;
  /** The warm set's reserved part of the last-good cache. */
  warmCache: CacheSize;
  /** The suggestions' part of the last-good cache (`cache` keeps the other reads'). */
  suggestCache: CacheSize;
  /** PostgreSQL fallback reads running and waiting. */
  fallback: { running: number; waiting: number };
  /** Searches holding and waiting for a slot to the index. */
  admission: { running: number; waiting: number };
}

/** What the warmer may ask and tell. */
export interface DegradedWarming {
  /** Degraded Mode is on (the breaker is open or half-open). */
  readonly active: boolean;
  /**
   * Keeps an index answer to a warm request in the warm part under the key a buyer's request
   * gets; false, keeping nothing, once Degraded Mode is on (it may have begun while the warm
   * request ran).
   */
  keepWarm(key: string, data: unknown): boolean;
  /** A warm request failed (the pass goes on; the next pass retries it). */
  warmFailed(): void;
  /** A pass ran to the end: the warm part keeps the entries of `keys` only. */
  warmPassDone(keys: ReadonlySet<string>): void;
  status(): DegradedStatus;
}

export interface DegradedMode extends DegradedWarming {
  readonly options: DegradedOptions;
  /** The client buyer queries use: short timeout, no retry. */
  readonly searchClient: Client;

  // What the buyer service asks and tells.
  /** A permit to ask the index, or null when the request must be answered in Degraded Mode. */
  tryAcquire(): Permit | null;
  /** Runs a search within one of the slots to the index; throws LimiterBusy when none frees in time (then shed()). */
  admit<T>(ask: () => Promise<T>): Promise<T>;
  /** A good index answer to the request under `key`: the breaker hears of it, the last-good cache keeps it. */
  indexAnswered<T>(permit: Permit, key: string, data: T): Answer<T>;
  /**
   * The index query failed (not a DomainError: that is the request's own fault); `timedOut` when
   * it ran out of time. A timeout while the cluster answered other queries is overload: it does
   * not count toward Degraded Mode (the request itself is still answered without the index).
   */
  indexFailed(permit: Permit, reason: string, timedOut?: boolean): void;
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

  // What operators' tools, benches and tests ask and tell.
  /** The counters so far (a copy). */
  counters(): DegradedMetrics;
  /** A look at the cluster from outside the watcher (a test forcing Degraded Mode on). */
  observe(o: Observation): void;
  /** The JSON text each part of the last-good cache holds under `key`; counts nothing. */
  cached(key: string): { warm: string | undefined; general: string | undefined };
  /** The warm part's keys. */
  warmKeys(): string[];
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
  const observe = (o: Observation) => {
    breaker.observe(o);
    note();
  };
  const watch = options.watch.enabled ? watchCluster(deps.es.child({ maxRetries: 0 }), deps.index.alias, observe, options.watch) : null;
  const cluster = (): ClusterView => watch?.view() ?? { status: 'unknown', detail: 'watcher disabled', checkedAt: null, latencyMs: null };

  const status = (): DegradedStatus => ({
    breaker: breaker.snapshot(),
    cluster: cluster(),
    cache: { entries: cache.entries, bytes: cache.bytes },
    warmCache: { entries: warmCache.entries, bytes: warmCache.bytes },
    suggestCache: { entries: suggestCache.entries, bytes: suggestCache.bytes },
    fallback: { running: fallback.limiter.running, waiting: fallback.limiter.waiting },
    admission: { running: admission.running, waiting: admission.waiting },
  });

  return {
    options,
    // No retry on one node (a dead cluster must not cost a buyer twice the wait); on a cluster, a
    // refused connection moves on to the next node instead of failing the read (failoverRetries).
    searchClient: deps.es.child({ requestTimeout: options.queryTimeoutMs, maxRetries: failoverRetries(deps.es) }),
    get active() {
      return breaker.degraded;
    },
    tryAcquire: () => {
      const p = breaker.tryAcquire();
      note();
      return p;
    },
    admit: (ask) => admission.run(ask),
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
    keepWarm: (key, data) => {
      if (breaker.degraded) return false;
      warmCache.setJson(key, JSON.stringify(data));
      metrics.warmRequests += 1;
      return true;
    },
    warmFailed: () => {
      metrics.warmFailures += 1;
    },
    warmPassDone: (keys) => {
      for (const key of warmCache.keys()) if (!keys.has(key)) warmCache.delete(key);
      metrics.warmPasses += 1;
    },
    status,
    counters: () => structuredClone(metrics),
    observe,
    cached: (key) => ({ warm: warmCache.getJson(key), general: liveCache(key).getJson(key) }),
    warmKeys: () => warmCache.keys(),
    registerMetrics: (registry) =>
      registerDegradedMetrics(registry, metrics, () => {
        const s = status();
        return {
          state: s.breaker.state,
          cluster: s.cluster.status,
          cache: s.cache,
          warmCache: s.warmCache,
          suggestCache: s.suggestCache,
          fallback: s.fallback,
          admission: s.admission,
        };
      }),
    stop: () => watch?.stop(),
  };
}
