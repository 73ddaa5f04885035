import type { Client } from '@elastic/elasticsearch';
import { indexReads } from './index-reads.js';
import { landingRequests, singleFilterRequests } from './degraded/warm-set.js';

// A freshly built index is cold: its first searches pay for what a serving index keeps warm (the
// filter cache, doc values and postings read in). Readers must not be the ones who pay, so a
// rebuild asks the new index, before its alias swap, the searches storefronts ask most: the warm
// set (the landing grid in both sorts, then the first page of each single-filter grid, busiest
// values first) within a time budget.

export interface WarmUpOptions {
  /** Values per landing-grid facet asked (the facets list at most 100). */
  perFacet: number;
  /** Stop asking after this long (the rebuild goes on; a cut-short warm-up warmed the busiest first). */
  budgetMs: number;
  /** Timeout of one search. */
  timeoutMs: number;
}

export interface WarmUpResult {
  requests: number;
  failures: number;
  ms: number;
  /** Requests left unasked when the budget ran out. */
  skipped: number;
}

export const DEFAULT_WARM_UP: WarmUpOptions = { perFacet: 100, budgetMs: 60_000, timeoutMs: 10_000 };

/** Asks `index` (a concrete index, not the alias) the warm set's searches, one at a time; `signal` stops it early. */
export async function warmUpIndex(es: Client, index: string, opts: WarmUpOptions = DEFAULT_WARM_UP, signal?: AbortSignal): Promise<WarmUpResult> {
  const started = Date.now();
  const reads = indexReads(es.child({ requestTimeout: opts.timeoutMs, maxRetries: 0 }), index);
  let requests = 0;
  let failures = 0;
  const ask = async (q: Parameters<typeof reads.search>[0]) => {
    requests += 1;
    try {
      return await reads.search(q, null);
    } catch {
      failures += 1;
      return null;
    }
  };
  const [landing] = await Promise.all(landingRequests().map((r) => ask(r.query)));
  const rest = landing ? singleFilterRequests(landing.facets, opts.perFacet) : [];
  let i = 0;
  for (; i < rest.length && Date.now() - started < opts.budgetMs && !signal?.aborted; i++) await ask(rest[i]!.query);
  return { requests, failures, ms: Date.now() - started, skipped: rest.length - i };
}
