import type { Registry } from 'prom-client';
import type { Infra } from './config/infra.js';
import { httpMetrics, type HttpMetrics } from './lib/http-metrics.js';
import { createRegistry } from './lib/metrics.js';
import { sharedLimiter, TokenBucketLimiter, type SharedLimiter, type SharedStore } from './lib/rate-limiter.js';
import { AUTH_FAILURES_PREFIX, sweepRateLimits } from './db/rate-limits.js';
import { createBuyerService, type BuyerService, type BuyerServiceOptions } from './search/buyer-service.js';
import { createDegradedMode, type DegradedMode } from './search/degraded/mode.js';
import type { DegradedOverrides } from './search/degraded/options.js';
import { createWarmer, type Warmer, type WarmerOptions } from './search/degraded/warmer.js';
import {
  DEFAULT_LIVE_CATALOG,
  liveCatalog,
  registerLiveCatalogMetrics,
  type LiveCatalog,
  type LiveCatalogOptions,
} from './search/suggest/live-catalog.js';

// The long-lived services of the API process, built once here and passed explicitly to whatever
// uses them (routes, health, benches, tests). A plain object: a new part (orders, the webhook
// sender) is one more entry, built from `infra` and the entries before it.

export interface Services {
  /** Breaker, cluster watcher, last-good cache and counters: what /readyz and /metrics report. */
  degraded: DegradedMode;
  /** The buyer reads (index, then Degraded Mode), acting on `degraded`. */
  buyer: BuyerService;
  /** Keeps the warm set (landing grid, single-filter grids) in the last-good cache while healthy. */
  warmer: Warmer;
  /** The cards as suggestions need them, in memory and in step with the index (null when off). */
  suggestCatalog: LiveCatalog | null;
  /**
   * Shared by every API process on the same PostgreSQL: per API key on seller routes, and failed
   * authentications per client address. One budget per process: per client address on public
   * routes and on seller routes before authentication (no round trip on those: README, "Scaling out").
   */
  rateLimits: { seller: SharedLimiter; public: TokenBucketLimiter; sellerAddress: TokenBucketLimiter; authFailures: SharedLimiter };
  /** Listing writes in flight per seller id (the per-seller write cap). */
  writesInFlight: Map<number, number>;
  /** The process's Prometheus registry (GET /metrics) and the HTTP metrics the middleware records. */
  metrics: { registry: Registry; http: HttpMetrics };
  /** Set once the process drains before exiting: /readyz answers 503 from then on. */
  lifecycle: { draining: boolean };
  /** Stops the timers (warmer, cluster watcher, the rate limits' sweep); resolves when a running warm pass has stopped. */
  stop(): Promise<void>;
}

export interface ServiceOverrides {
  degraded?: DegradedOverrides;
  buyer?: BuyerServiceOptions;
  /** The warmer's settings (default: the DEGRADED_WARM_* environment). */
  warm?: Partial<WarmerOptions>;
  /** prom-client's process and Node metrics in the registry (the API process; off for in-process apps of tests). */
  processMetrics?: boolean;
  /** The suggestion catalog's settings; `false`: none (suggestions always ask the index). Default: SUGGEST_CATALOG. */
  suggestCatalog?: Partial<LiveCatalogOptions> | false;
  /** `memory`: the per-key and failed-authentication budgets stay in this process (the rate-limit bench's baseline). */
  rateLimitStore?: 'postgres' | 'memory';
}

export function createServices(infra: Infra, overrides: ServiceOverrides = {}): Services {
  const degraded = createDegradedMode(infra, overrides.degraded);
  const { env } = infra;
  const registry = createRegistry({ processMetrics: overrides.processMetrics ?? false });
  degraded.registerMetrics(registry);
  const http = httpMetrics(registry);
  // The limiter's own small pool: a locked or slow `rate_limits` holds none of the key lookups' or
  // /readyz's connections, and a take waits at most RATE_LIMIT_STORE_TIMEOUT_MS for it.
  const limitPool = infra.limitPool ?? infra.authPool ?? infra.pool;
  const store = (limiter: 'seller' | 'auth-failures'): SharedStore | null =>
    overrides.rateLimitStore === 'memory'
      ? null
      : {
          pool: limitPool,
          timeoutMs: env.RATE_LIMIT_STORE_TIMEOUT_MS,
          // A burst may queue briefly for the pool; a locked table must not grow that queue without bound.
          maxInFlight: 16 * (infra.limitPool ? env.PG_LIMIT_POOL_SIZE : 1),
          onFallback: (reason) => http.storeFallback(limiter, reason),
        };
  // Rows of ended windows go every minute, not only an hour after (rotating client addresses write
  // one failed-authentication row each); a failed sweep is tried again at the next tick.
  const sweep =
    overrides.rateLimitStore === 'memory'
      ? undefined
      : setInterval(() => {
          sweepRateLimits(limitPool, env.RATE_LIMIT_STORE_MAX_ROWS).catch((err: Error) =>
            infra.logger.warn({ err: err.message }, 'rate_limits sweep failed; next one in a minute'),
          );
        }, 60_000).unref();
  const warmer = createWarmer(infra, degraded, {
    enabled: env.DEGRADED_WARM_ENABLED,
    intervalMs: env.DEGRADED_WARM_INTERVAL_MS,
    perFacet: env.DEGRADED_WARM_PER_FACET,
    concurrency: env.DEGRADED_WARM_CONCURRENCY,
    timeoutMs: env.DEGRADED_WARM_TIMEOUT_MS,
    ...overrides.warm,
  });
  const suggestCatalog =
    // Off where the index reads are replaced (tests of the buyer service with reads of their own).
    overrides.suggestCatalog === false || overrides.buyer?.primary !== undefined || (overrides.suggestCatalog === undefined && !env.SUGGEST_CATALOG)
      ? null
      : liveCatalog(
          { es: infra.es, alias: infra.index.alias, databaseUrl: env.DATABASE_URL, logger: infra.logger },
          { ...DEFAULT_LIVE_CATALOG, reloadMs: env.SUGGEST_CATALOG_RELOAD_MS, ...overrides.suggestCatalog },
        );
  if (suggestCatalog !== null) registerLiveCatalogMetrics(registry, suggestCatalog);
  return {
    degraded,
    buyer: createBuyerService(infra, degraded, { catalog: suggestCatalog ?? undefined, ...overrides.buyer }),
    warmer,
    suggestCatalog,
    rateLimits: {
      seller: sharedLimiter(store('seller'), 'seller', env.RATE_LIMIT_SELLER_PER_MIN),
      public: new TokenBucketLimiter(env.RATE_LIMIT_PUBLIC_PER_MIN),
      sellerAddress: new TokenBucketLimiter(env.RATE_LIMIT_SELLER_ADDRESS_PER_MIN),
      authFailures: sharedLimiter(store('auth-failures'), AUTH_FAILURES_PREFIX, env.RATE_LIMIT_AUTH_FAILURES_PER_MIN),
    },
    writesInFlight: new Map(),
    metrics: { registry, http },
    lifecycle: { draining: false },
    stop: async () => {
      clearInterval(sweep);
      await warmer.stop();
      await suggestCatalog?.stop();
      degraded.stop();
    },
  };
}
