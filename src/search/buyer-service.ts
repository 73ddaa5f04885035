import type { Infra } from '../config/infra.js';
import { DomainError } from '../contract/errors.js';
import { failureReason, JsonAnswer, type Answer } from './degraded/answer.js';
import { methodOfKey, requestKey } from './degraded/cache.js';
import { LimiterBusy } from './degraded/limiter.js';
import type { DegradedCause } from './degraded/metrics.js';
import type { DegradedMode } from './degraded/mode.js';
import { indexReads } from './index-reads.js';
import { pgReads } from './pg-reads.js';
import type { BuyerReads, ProductPage } from './reads.js';
import type { LiveCatalog } from './suggest/live-catalog.js';
import type { SearchPage } from './queries/search-result.js';
import type { CartLine, LookupBody, ProductQuery, SearchQuery, Suggestions, SuggestQuery } from '../contract/buyer.js';

export interface BuyerService {
  productPage(productId: number, q: ProductQuery): Promise<Answer<ProductPage>>;
  search(q: SearchQuery, after: string | null): Promise<Answer<SearchPage>>;
  suggest(q: SuggestQuery): Promise<Answer<Suggestions>>;
  lookup(body: LookupBody): Promise<Answer<CartLine[]>>;
  readonly mode: DegradedMode;
}

export interface BuyerServiceOptions {
  /** Replaces the index reads (tests). */
  primary?: BuyerReads;
  /** Replaces the PostgreSQL fallback (tests). */
  fallback?: BuyerReads;
  /** The cards in memory: suggestions answered from it while it is current and the cluster healthy. */
  catalog?: LiveCatalog;
}

class QueryTimeout extends Error {
  constructor(ms: number) {
    super(`index query exceeded ${ms} ms`);
    this.name = 'QueryTimeout';
  }
}

/** Guards against anything that outlives the client's own request timeout. */
function within<T>(p: Promise<T>, ms: number): Promise<T> {
  // One promise and one timer per read (a race plus finally made four promises).
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new QueryTimeout(ms)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/** The index client's own timeout, or this module's guard. */
function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === 'TimeoutError' || err.name === 'QueryTimeout');
}

/**
 * The buyer reads with Degraded Mode (DECISIONS.md): while the breaker lets a request through
 * (closed, or a half-open probe) it asks the index; an index error or timeout, or an open
 * breaker, hands the request to Degraded Mode (`mode.answer`: the last-good answer, then
 * PostgreSQL, then 503 SERVICE_UNAVAILABLE with Retry-After). A buyer read never turns into a
 * bare 500 because the cluster is down.
 *
 * Searches, the reads that cost the cluster most, are admitted (`mode.admit`): a search that
 * finds no slot within its wait is answered at once without the index (`mode.shed`), so past
 * capacity the cluster keeps serving a steady load fast instead of queueing every request into
 * its timeout. Product pages and cart lookups are cheap and go straight through. Suggestions are
 * answered from the API's own copy of the cards (suggest/live-catalog.ts) while it is current.
 */
export function createBuyerService(deps: Pick<Infra, 'pool' | 'index' | 'logger'>, mode: DegradedMode, opts: BuyerServiceOptions = {}): BuyerService {
  const primary = opts.primary ?? indexReads(mode.searchClient, deps.index.alias);
  const fallback = opts.fallback ?? pgReads(deps.pool, mode.options.pg);
  const log = deps.logger.child({ component: 'buyer-service' });
  const guardMs = mode.options.queryTimeoutMs + 250;

  /**
   * One read under Degraded Mode: `read(primary)` while the breaker gives a permit (a search within
   * an admission slot, or shed), else `read(fallback)` through `mode.answer`, whose last-good
   * cache keeps answers under `key`.
   */
  async function withDegradedMode<T>(key: string, read: (from: BuyerReads) => Promise<T>, admitted: boolean): Promise<Answer<T>> {
    const permit = mode.tryAcquire();
    let cause: DegradedCause = 'breaker_open';
    if (permit) {
      const ask = () => within(read(primary), guardMs);
      try {
        const data = admitted ? await mode.admit(ask) : await ask();
        return mode.indexAnswered(permit, key, data);
      } catch (err) {
        if (err instanceof DomainError) throw err;
        if (err instanceof LimiterBusy) {
          mode.release(permit);
          return mode.shed<T>(key);
        }
        const timedOut = isTimeout(err);
        cause = timedOut ? 'timeout' : 'index_error';
        mode.indexFailed(permit, failureReason(err), timedOut);
        log.warn({ method: methodOfKey(key), err: failureReason(err) }, 'index query failed; answering in Degraded Mode');
      }
    }
    return mode.answer(key, () => read(fallback), cause);
  }
  /** Product pages, suggestions and cart lookups are cheap: straight to the index. */
  const orDegraded = <T>(key: string, read: (from: BuyerReads) => Promise<T>) => withDegradedMode(key, read, false);
  /** A search waits for an admission slot, or is shed. */
  const admittedOrDegraded = <T>(key: string, read: (from: BuyerReads) => Promise<T>) => withDegradedMode(key, read, true);

  return {
    mode,
    productPage: (productId, q) => orDegraded(requestKey('productPage', [productId, q]), (from) => from.productPage(productId, q)),
    search: (q, after) => admittedOrDegraded(requestKey('search', [q, after]), (from) => from.search(q, after)),
    suggest: (q) => {
      // From memory while the catalog is in step with the index; never in Degraded Mode (the
      // catalog cannot tell it missed the cluster's last changes): the last-good cache, then PostgreSQL.
      const catalog = mode.active ? null : (opts.catalog?.current() ?? null);
      if (catalog !== null) return Promise.resolve(new JsonAnswer(false, { data: catalog.suggest(q) }));
      return orDegraded(requestKey('suggest', [q]), (from) => from.suggest(q));
    },
    lookup: (body) => orDegraded(requestKey('lookup', [body]), (from) => from.lookup(body)),
  };
}
