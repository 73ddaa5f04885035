import type { AppDeps } from '../api/deps.js';
import { indexReads } from './index-reads.js';
import type { BuyerReads } from './reads.js';

export interface Answer<T> {
  data: T;
  degraded: boolean;
}

type Method = keyof BuyerReads;
type Result<M extends Method> = Awaited<ReturnType<BuyerReads[M]>>;

export interface BuyerService {
  call<M extends Method>(method: M, ...args: Parameters<BuyerReads[M]>): Promise<Answer<Result<M>>>;
}

/** Buyer reads from the index. Degraded Mode (cache and PostgreSQL fallback) plugs in here. */
export function createBuyerService(deps: Pick<AppDeps, 'es' | 'index'>): BuyerService {
  const primary = indexReads(deps.es, deps.index.alias);
  return {
    async call(method, ...args) {
      const fn = primary[method] as (...a: typeof args) => Promise<Result<typeof method>>;
      return { data: await fn(...args), degraded: false };
    },
  };
}
