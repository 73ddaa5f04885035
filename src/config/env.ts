import { z } from 'zod';
import { esNodeUrls, redactUrl } from '../es/client.js';

/** Public, in the repository: fine for development and tests, refused in production. */
export const DEV_CURSOR_SECRET = 'dev-only-cursor-secret-change-me';

// One schema for every entry point (API, indexer, ops scripts, tests), so a bad value fails
// at start-up with the variable's name instead of deep inside a request.
const envSchema = z
  .object({
    DATABASE_URL: z.string().min(1).default('postgres://postgres@127.0.0.1:54329/marketplace'),
    /** One node, or the comma-separated nodes of a cluster (the client's node pool). */
    ELASTICSEARCH_URL: z
      .string()
      .default('http://127.0.0.1:9209')
      .superRefine((value, ctx) => {
        const nodes = esNodeUrls(value);
        if (nodes.length === 0) ctx.addIssue({ code: 'custom', message: 'at least one node URL (http://host:port), comma-separated for a cluster' });
        for (const node of nodes) {
          if (!isNodeUrl(node))
            ctx.addIssue({ code: 'custom', message: `'${redactUrl(node)}' is not a node URL (http://host:port or https://host:port)` });
        }
      }),
    /** Primary shards of a new index (a rebuild applies it; the live index keeps what it was built with). */
    INDEX_SHARDS: z.coerce.number().int().min(1, 'at least 1').max(1024, 'at most 1024').default(1),
    /** Replicas of each shard of a new index: 0 on one node; at most nodes - 1, or the rebuild stops before the swap. */
    INDEX_REPLICAS: z.coerce.number().int().min(0, 'at least 0').default(0),
    /** While changes keep coming, the live indexer starts a batch at most this often (ms), so each takes many. */
    INDEXER_GATHER_MS: z.coerce.number().int().min(0).max(5000).default(250),
    /** Change feed rows per live batch at most (batches grow to it while a backlog waits). */
    INDEXER_MAX_BATCH: z.coerce.number().int().min(1).max(100_000).default(20_000),
    /** Changes of one seller behind the checkpoint that give it a lane of its own (a burst): the small lane skips them. */
    INDEXER_BURST_MIN: z.coerce.number().int().min(1).default(1000),
    INDEX_PREFIX: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, _ and - only')
      .default('mp'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    NODE_ENV: z.string().optional(),
    CURSOR_SECRET: z.string().min(16).default(DEV_CURSOR_SECRET),
    ES_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
    RATE_LIMIT_SELLER_PER_MIN: z.coerce.number().int().positive().default(600),
    RATE_LIMIT_PUBLIC_PER_MIN: z.coerce.number().int().positive().default(6000),
    /** Seller routes, per client address, before authentication. */
    RATE_LIMIT_SELLER_ADDRESS_PER_MIN: z.coerce.number().int().positive().default(3000),
    /** Failed authentications per client address; beyond it a bad key is 429 (a valid key still authenticates). */
    RATE_LIMIT_AUTH_FAILURES_PER_MIN: z.coerce.number().int().positive().default(60),
    /** Longest wait for the shared limiter's PostgreSQL store; then this process's own budget answers. */
    RATE_LIMIT_STORE_TIMEOUT_MS: z.coerce.number().int().positive().default(250),
    /** Rows the sweep keeps `rate_limits` under (failed-authentication rows of the fewest points go first). */
    RATE_LIMIT_STORE_MAX_ROWS: z.coerce.number().int().positive().default(100_000),
    /** In-flight listing writes (single, bulk, purge) per seller; more get 429 RATE_LIMITED. */
    SELLER_MAX_CONCURRENT_WRITES: z.coerce.number().int().positive().default(4),
    /** API main pool size, and the small separate pool for key lookups and /readyz. */
    PG_POOL_SIZE: z.coerce.number().int().positive().default(20),
    PG_AUTH_POOL_SIZE: z.coerce.number().int().positive().default(3),
    /** The shared rate limiter's own pool; 16 store calls per connection may run or wait, more use the process's own budget. */
    PG_LIMIT_POOL_SIZE: z.coerce.number().int().positive().default(2),
    /** Longest wait for a free PostgreSQL connection before a request fails with 503. */
    PG_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
    /** statement_timeout of the API's connections (seller routes; buyer fallbacks set their own, shorter). */
    PG_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(10000),
    /** Express `trust proxy`: which hops may set X-Forwarded-For (the client address of the rate limits). */
    TRUST_PROXY: z.string().min(1).default('loopback'),
    /** On SIGTERM the API keeps serving this long with /readyz answering 503, so a load balancer stops sending it requests. */
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).default(5000),
    /** Then requests in flight get this long to finish before their connections are cut. */
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
    /**
     * Where the storefront page may load catalog images from (its CSP img-src): space-separated
     * `https:` (any HTTPS host) or `https://host` (a `*.` subdomain wildcard allowed). Never `*`,
     * `http:` or `data:`: catalog data would choose which hosts a buyer's browser contacts.
     */
    STOREFRONT_IMAGE_SOURCES: z
      .string()
      .default('https:')
      .transform((s, ctx) => {
        const sources = s.split(/\s+/).filter((x) => x !== '');
        const bad = sources.filter((x) => !/^(https:|https:\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?)$/i.test(x));
        if (sources.length === 0 || bad.length > 0) {
          ctx.addIssue({
            code: 'custom',
            message: `space-separated https: or https://host sources (got ${bad.map((b) => JSON.stringify(b)).join(', ') || 'none'})`,
          });
          return z.NEVER;
        }
        return sources;
      }),
    /** /readyz details (cluster address, breaker, cache) and /metrics on the API port: only where that port is private. */
    HEALTH_DETAILS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    // Degraded Mode warm set (docs/search-design.md "Degraded Mode: the warm set").
    /** 'true' only: the API warms the last-good cache with the landing grid and each single-filter grid. */
    DEGRADED_WARM_ENABLED: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    /** Shortest time between the end of a warm pass and the next check for index changes. */
    DEGRADED_WARM_INTERVAL_MS: z.coerce.number().int().positive().default(30_000),
    /** Values per facet warmed (the facets return at most 100, most products first). */
    DEGRADED_WARM_PER_FACET: z.coerce.number().int().min(0).max(100).default(100),
    /** Warm requests in flight at once: 1 or 2, so the warmer never competes with buyers. */
    DEGRADED_WARM_CONCURRENCY: z.coerce.number().int().min(1).max(2).default(1),
    /** Timeout of one warm request (longer than a buyer's: a slow grid is still worth keeping). */
    DEGRADED_WARM_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /** Size bound of the warm set's reserved part of the last-good cache, in MiB of JSON text. */
    DEGRADED_WARM_CACHE_MB: z.coerce.number().int().min(1).max(4096).default(32),
    /** 'true': suggestions are answered from the API's in-memory copy of the cards (docs/search-design.md "Suggestions from memory"). */
    SUGGEST_CATALOG: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    /** Every card is read into the suggestion catalog again this often (a safety net for lost notices). */
    SUGGEST_CATALOG_RELOAD_MS: z.coerce.number().int().min(10_000).default(600_000),
    // Search admission (docs/search-design.md "Overload"): searches in flight to the index per API
    // process, how long one more may wait for a slot before it is answered without the index, and
    // who gets a freed slot (adaptive: newest first once the queue is congested; limiter.ts).
    SEARCH_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(256).default(8),
    SEARCH_MAX_WAIT_MS: z.coerce.number().int().min(0).max(10_000).default(250),
    SEARCH_QUEUE_ORDER: z.enum(['adaptive', 'fifo']).default('adaptive'),
    // Webhook dispatcher (DECISIONS.md "Events").
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
    WEBHOOK_RETRY_DELAYS_MS: z
      .string()
      .default('5000,300000,1800000,7200000,18000000,36000000,36000000')
      .transform((s, ctx) => {
        const parts = s
          .split(',')
          .map((p) => p.trim())
          .filter((p) => p !== '');
        const delays = parts.map(Number);
        if (delays.some((d) => !Number.isInteger(d) || d < 0)) {
          ctx.addIssue({ code: 'custom', message: 'comma-separated non-negative integers (milliseconds)' });
          return z.NEVER;
        }
        return delays;
      }),
    // 'true' only: z.coerce.boolean() would read the string 'false' as true.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    WEBHOOK_CONCURRENCY: z.coerce.number().int().positive().default(64),
    WEBHOOK_CONCURRENCY_PER_ENDPOINT: z.coerce.number().int().positive().default(4),
    WEBHOOK_POLL_MS: z.coerce.number().int().positive().default(1000),
    /** Of WEBHOOK_CONCURRENCY, the most that untried endpoints hold in all (one attempt each); unset: an eighth. */
    WEBHOOK_CONCURRENCY_UNTRIED: z.coerce.number().int().positive().optional(),
    /** Of WEBHOOK_CONCURRENCY, the most that degraded and breaker-open endpoints (and untried ones beyond their share) hold in all; unset: a quarter. */
    WEBHOOK_CONCURRENCY_UNHEALTHY: z.coerce.number().int().positive().optional(),
    /** Attempts in a row without an answer that open an endpoint's breaker. */
    WEBHOOK_BREAKER_FAILURES: z.coerce.number().int().positive().default(5),
    /** While the breaker is open, the wait after a failed attempt before the next probe. */
    WEBHOOK_BREAKER_COOLDOWN_MS: z.coerce.number().int().nonnegative().default(30_000),
    /** An answer slower than this leaves the endpoint degraded (not healthy) until a faster one. */
    WEBHOOK_SLOW_MS: z.coerce.number().int().positive().default(5000),
    /** Finished events (and their attempts) are deleted this many days after they finished. */
    WEBHOOK_RETENTION_DAYS: z.coerce.number().positive().default(30),
    WEBHOOK_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9465),
    /** Address the indexer's, the dispatcher's and reindex's metrics endpoints listen on. */
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    // Indexer and rebuilds.
    INDEXER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
    /** The live indexer's safety-net poll of the change feed (NOTIFY wakes it at once). */
    INDEXER_POLL_MS: z.coerce.number().int().positive().default(500),
    /** `npm run reindex` serves its progress and process metrics here while it runs. */
    REINDEX_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9466),
  })
  .superRefine((env, ctx) => {
    // Anyone can read the development secret, and with it forge any cursor: production must set its own.
    if (env.NODE_ENV === 'production' && (env.CURSOR_SECRET === DEV_CURSOR_SECRET || env.CURSOR_SECRET.length < 32)) {
      ctx.addIssue({
        code: 'custom',
        path: ['CURSOR_SECRET'],
        message: 'NODE_ENV=production needs a CURSOR_SECRET of at least 32 characters other than the development default (e.g. `openssl rand -hex 32`)',
      });
    }
  });

function isNodeUrl(node: string): boolean {
  try {
    const u = new URL(node);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export type Env = z.infer<typeof envSchema>;

export function loadEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join('\n')}`);
  }
  return parsed.data;
}
