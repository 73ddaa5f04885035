import type { Client } from '@elastic/elasticsearch';
import type { Infra } from '../../config/infra.js';
import type { Logger } from '../../lib/logger.js';
import { indexReads } from '../index-reads.js';
import type { BuyerReads } from '../reads.js';
import { failureReason } from './answer.js';
import type { DegradedWarming } from './mode.js';
import { landingRequests, singleFilterRequests, type WarmRequest } from './warm-set.js';

// Warms the last-good cache ahead of an outage (docs/search-design.md "Degraded Mode: the warm
// set"): while the cluster is healthy, and only when the index changed since the last full pass,
// it asks the index the warm set's searches one or two at a time and keeps each answer in the
// cache's reserved part under the key a storefront's request gets. It never runs in Degraded Mode
// and never writes anything but an index answer, so it cannot replace a good entry with a
// degraded one. Its queries do not feed the breaker: they are not buyer traffic, and they run with
// a longer timeout (a grid too slow for a buyer is still worth having for an outage).

export interface WarmerOptions {
  /** Runs the timer loop (createServices: DEGRADED_WARM_ENABLED; tests turn it on themselves). */
  enabled: boolean;
  /** Shortest time between the end of one check or pass and the next check. */
  intervalMs: number;
  /** Values per facet warmed. */
  perFacet: number;
  /** Warm requests in flight at once. */
  concurrency: number;
  /** Timeout of one warm request, and of the change check. */
  timeoutMs: number;
}

export interface WarmPass {
  /**
   * `warmed`: every warm request was tried; `unchanged`: the index did not change since the last
   * full pass, nothing asked; `degraded`: Degraded Mode is on (before or during the pass), stopped;
   * `failed`: the change check or the landing grid failed; `stopped`: the warmer was stopped.
   */
  outcome: 'warmed' | 'unchanged' | 'degraded' | 'failed' | 'stopped';
  /** Warm requests asked (including the landing grids). */
  requests: number;
  /** Answers kept in the cache. */
  kept: number;
  failures: number;
  durationMs: number;
  /** The warm part of the cache after the pass. */
  entries: number;
  bytes: number;
}

export interface Warmer {
  readonly options: WarmerOptions;
  /** Checks for a change and runs a pass if there was one (waits for a pass already running). */
  tick(): Promise<WarmPass>;
  /** The last check's outcome, null before the first. */
  readonly last: WarmPass | null;
  /** Stops the loop; resolves when a running pass has stopped (at its next request). */
  stop(): Promise<void>;
}

/**
 * What the searches can see of the index, cheaply: the concrete index behind the alias, its
 * document count, and the highest `_seq_no` among its live documents, from one search (so as of
 * the last refresh, like the warm searches themselves; index stats would count writes no search
 * sees yet, and a pass run before the refresh would then be taken as current). Every write gets a
 * new sequence number, so an insert or update raises the maximum and a delete lowers the count;
 * an alias swap changes the index name. Sequence numbers are per shard: with more than one shard
 * a write to another shard could leave the maximum as it was, so then the answer is null ("cannot
 * tell", every check runs a pass). The index has one shard unless INDEX_SHARDS says otherwise.
 */
export async function indexSignal(es: Client, alias: string, timeoutMs: number): Promise<string | null> {
  const res = await es.search(
    {
      index: alias,
      size: 1,
      sort: [{ _seq_no: 'desc' }],
      _source: false,
      track_total_hits: true,
      allow_partial_search_results: false,
      query: { match_all: {} },
    },
    { requestTimeout: timeoutMs, maxRetries: 0 },
  );
  if (res._shards.total !== 1) return null;
  const total = typeof res.hits.total === 'number' ? res.hits.total : (res.hits.total?.value ?? 0);
  const top = res.hits.hits[0];
  return `${top?._index ?? '-'} ${total} ${String(top?.sort?.[0] ?? -1)}`;
}

/** Consecutive failed warm requests that end a pass early (the cluster is likely in trouble). */
const MAX_CONSECUTIVE_FAILURES = 3;

type SearchAnswer = Awaited<ReturnType<BuyerReads['search']>>;
type Abort = 'degraded' | 'stopped' | 'failed';

/**
 * One pass's asking and keeping: `warm(r)` asks the index one warm request and keeps the answer
 * in the warm part of the cache, counting as it goes; once the pass must stop (the warmer
 * stopped, Degraded Mode began, or too many failures in a row) `abort` says why and nothing more
 * is asked.
 */
function warmRun(mode: DegradedWarming, reads: BuyerReads, log: Logger, stopped: () => boolean) {
  let consecutive = 0;
  const run = {
    requests: 0,
    kept: 0,
    failures: 0,
    abort: null as Abort | null,
    async warm(r: WarmRequest): Promise<SearchAnswer | null> {
      if (stopped()) run.abort = 'stopped';
      else if (mode.active) run.abort = 'degraded';
      if (run.abort) return null;
      run.requests += 1;
      try {
        const data = await reads.search(r.query, null);
        // Asked while healthy, but Degraded Mode may have begun since: keep nothing from then.
        if (!mode.keepWarm(r.key, data)) {
          run.abort = 'degraded';
          return null;
        }
        run.kept += 1;
        consecutive = 0;
        return data;
      } catch (err) {
        run.failures += 1;
        consecutive += 1;
        mode.warmFailed();
        log.debug({ key: r.key, err: failureReason(err) }, 'warm request failed');
        if (consecutive >= MAX_CONSECUTIVE_FAILURES) run.abort ??= 'failed';
        return null;
      }
    },
  };
  return run;
}

/** Asks `requests` in order, `concurrency` at a time, until they are done or the run aborts. */
async function warmAll(run: ReturnType<typeof warmRun>, requests: readonly WarmRequest[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (run.abort === null && next < requests.length) await run.warm(requests[next++]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}

export function createWarmer(
  deps: Pick<Infra, 'es' | 'index' | 'logger'>,
  mode: DegradedWarming,
  options: WarmerOptions,
  reads: BuyerReads = indexReads(deps.es.child({ requestTimeout: options.timeoutMs, maxRetries: 0 }), deps.index.alias),
): Warmer {
  const log = deps.logger.child({ component: 'degraded-warmer' });
  const es = deps.es.child({ maxRetries: 0 });
  let lastSignal: string | null = null;
  let last: WarmPass | null = null;
  let running: Promise<WarmPass> | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;

  async function pass(): Promise<WarmPass> {
    const started = performance.now();
    const result = (outcome: WarmPass['outcome'], run?: { requests: number; kept: number; failures: number }): WarmPass => ({
      outcome,
      requests: run?.requests ?? 0,
      kept: run?.kept ?? 0,
      failures: run?.failures ?? 0,
      durationMs: Math.round(performance.now() - started),
      ...mode.status().warmCache,
    });

    // 1. Never while stopped or in Degraded Mode.
    if (stopped) return result('stopped');
    if (mode.active) return result('degraded');

    // 2. Only when the index changed since the last complete pass.
    let signal: string | null;
    try {
      signal = await indexSignal(es, deps.index.alias, options.timeoutMs);
    } catch (err) {
      // Once per streak: until the breaker opens, every interval would say it again.
      log[last?.outcome === 'failed' ? 'debug' : 'warn']({ err: failureReason(err) }, 'warm pass skipped: the index change check failed');
      return result('failed');
    }
    if (signal !== null && signal === lastSignal) return result('unchanged');

    // 3. The landing grid first: its facets make the rest of the warm set.
    const run = warmRun(mode, reads, log, () => stopped);
    const [byName, byNameDesc] = landingRequests() as [WarmRequest, WarmRequest];
    const landing = await run.warm(byName);
    if (landing === null) run.abort ??= 'failed';
    const rest = landing === null ? [] : [byNameDesc, ...singleFilterRequests(landing.facets, options.perFacet)];

    // 4. The rest, one or two at a time.
    await warmAll(run, rest, options.concurrency);
    if (run.abort !== null) {
      const r = result(run.abort, run);
      log.info({ ...r }, `warm pass stopped early (${run.abort})`);
      return r;
    }

    // 5. The warm part holds the current warm set only: values gone from the facets leave it.
    mode.warmPassDone(new Set([byName.key, ...rest.map((r) => r.key)]));
    // A pass with failures is retried at the next check even if the index has not changed.
    if (run.failures === 0) lastSignal = signal;
    const r = result('warmed', run);
    log.info({ ...r }, `warm pass: ${run.requests} requests in ${r.durationMs} ms`);
    return r;
  }

  const tick = (): Promise<WarmPass> => {
    running ??= pass()
      .then((r) => {
        last = r;
        return r;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };

  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      void tick().finally(() => schedule(options.intervalMs));
    }, ms);
    timer.unref();
  };
  // The first check waits a moment, so the cluster watcher's first look has reached the breaker.
  if (options.enabled) schedule(Math.min(1000, options.intervalMs));

  return {
    options,
    tick,
    get last() {
      return last;
    },
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
