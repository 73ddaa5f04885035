import type { Infra } from '../config/infra.js';
import { DomainError } from '../contract/errors.js';
import { failureReason, type Answer } from './degraded/answer.js';
import { requestKey } from './degraded/cache.js';
import { LimiterBusy } from './degraded/limiter.js';
import type { DegradedCause } from './degraded/metrics.js';
import type { DegradedMode } from './degraded/mode.js';
import { indexReads } from './index-reads.js';
import { pgReads } from './pg-reads.js';
import type { BuyerReads } from './reads.js';

type Method = keyof BuyerReads;
type Result<M extends Method> = Awaited<ReturnType<BuyerReads[M]>>;

export interface BuyerService {
  call<M extends Method>(method: M, ...args: Parameters<BuyerReads[M]>): Promise<Answer<Result<M>>>;
  readonly mode: DegradedMode;
}

export interface BuyerServiceOptions {
  /** Replaces the index reads (tests). */
  primary?: BuyerReads;
  /** Replaces the PostgreSQL fallback (tests). */
  fallback?: BuyerReads;
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
  const name = (err as { name?: string }).name;
  return name === 'TimeoutError' || name === 'QueryTimeout';
}

/**
 * The buyer reads with Degraded Mode (DECISIONS.md): while the breaker lets a request through
 * (closed, or a half-open probe) it asks the index; an index error or timeout, or an open
 * breaker, hands the request to Degraded Mode (`mode.answer`: the last-good answer, then
 * PostgreSQL, then 503 SERVICE_UNAVAILABLE with Retry-After). A buyer read never turns into a
 * bare 500 because the cluster is down.
 *
 * Searches, the reads that cost the cluster most, are admitted (`mode.admission`): a search that
 * finds no slot within its wait is answered at once without the index (`mode.shed`), so past
 * capacity the cluster keeps serving a steady load fast instead of queueing every request into
 * its timeout. Product pages and cart lookups are cheap and go straight through.
 */
export function createBuyerService(deps: Pick<Infra, 'pool' | 'index' | 'logger'>, mode: DegradedMode, opts: BuyerServiceOptions = {}): BuyerService {
  const primary = opts.primary ?? indexReads(mode.searchClient, deps.index.alias);
  const fallback = opts.fallback ?? pgReads(deps.pool, mode.options.pg);
  const log = deps.logger.child({ component: 'buyer-service' });
  const guardMs = mode.options.queryTimeoutMs + 250;

  return {
    mode,
    async call(method, ...args) {
      type R = Result<typeof method>;
      const key = requestKey(method, args);
      const permit = mode.tryAcquire();
      let cause: DegradedCause = 'breaker_open';
      if (permit) {
        const ask = () => within((primary[method] as (...a: typeof args) => Promise<R>)(...args), guardMs);
        try {
          const data = method === 'search' ? await mode.admission.run(ask) : await ask();
          return mode.indexAnswered(permit, key, data);
        } catch (err) {
          if (err instanceof DomainError) throw err;
          if (err instanceof LimiterBusy) {
            mode.release(permit);
            return mode.shed<R>(key);
          }
          const timedOut = isTimeout(err);
          cause = timedOut ? 'timeout' : 'index_error';
          mode.indexFailed(permit, failureReason(err), timedOut);
          log.warn({ method, err: failureReason(err) }, 'index query failed; answering in Degraded Mode');
        }
      }
      return mode.answer(key, () => (fallback[method] as (...a: typeof args) => Promise<R>)(...args), cause);
    },
  };
}
