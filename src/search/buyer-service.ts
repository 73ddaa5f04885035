import { errors as esErrors } from '@elastic/elasticsearch';
import type { Infra } from '../config/infra.js';
import { DomainError } from '../contract/errors.js';
import { failureReason, type Answer } from './degraded/answer.js';
import { requestKey } from './degraded/cache.js';
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

/**
 * The buyer reads with Degraded Mode (DECISIONS.md): while the breaker lets a request through
 * (closed, or a half-open probe) it asks the index; an index error or timeout, or an open
 * breaker, hands the request to Degraded Mode (`mode.answer`: the last-good answer, then
 * PostgreSQL, then 503 SERVICE_UNAVAILABLE with Retry-After). A buyer read never turns into a
 * bare 500 because the cluster is down.
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
        try {
          const data = await within((primary[method] as (...a: typeof args) => Promise<R>)(...args), guardMs);
          return mode.indexAnswered(permit, key, data);
        } catch (err) {
          if (err instanceof DomainError) throw err;
          cause = err instanceof QueryTimeout || err instanceof esErrors.TimeoutError ? 'timeout' : 'index_error';
          mode.indexFailed(permit, failureReason(err));
          log.warn({ method, err: failureReason(err) }, 'index query failed; answering in Degraded Mode');
        }
      }
      return mode.answer(key, () => (fallback[method] as (...a: typeof args) => Promise<R>)(...args), cause);
    },
  };
}
