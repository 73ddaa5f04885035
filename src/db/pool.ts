import pg from 'pg';

// bigint ids (bigserial) fit comfortably in a JS number for this service's volumes.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolLimits {
  /** Longest wait for a free connection before the query fails (pg: connectionTimeoutMillis); 0 waits forever. */
  connectionTimeoutMs?: number;
  /** Server-side statement_timeout of every statement on the pool's connections; 0 = none. */
  statementTimeoutMs?: number;
  /** Server-side lock_timeout: longest wait for a lock (a locked table) before the statement fails; 0 = none. */
  lockTimeoutMs?: number;
}

export function createPool(databaseUrl: string, max = 10, onIdleError?: (err: Error) => void, limits: PoolLimits = {}): pg.Pool {
  // JIT compiles the seller_readiness view's plan on every query and never pays back on these
  // short set-based statements (BENCHMARKS.md, "PostgreSQL JIT").
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    application_name: 'marketplace-search',
    options: '-c jit=off',
    ...(limits.connectionTimeoutMs ? { connectionTimeoutMillis: limits.connectionTimeoutMs } : {}),
    ...(limits.statementTimeoutMs ? { statement_timeout: limits.statementTimeoutMs } : {}),
    ...(limits.lockTimeoutMs ? { lock_timeout: limits.lockTimeoutMs } : {}),
  });
  // An idle client whose server went away (restart, failover) emits 'error'; unhandled, that would
  // kill the process. The pool drops the client; the next query reconnects or fails on its own.
  pool.on('error', onIdleError ?? (() => undefined));
  // The same for a client checked out but between queries (e.g. one holding an advisory lock):
  // its next query fails instead, and the holder releases it as broken.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

export interface TransactionOptions {
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  readOnly?: boolean;
  /**
   * SET LOCAL settings, sent with BEGIN in one round trip. Values are SQL text (constants of
   * this code base, never input): `{ jit: 'off', work_mem: "'16MB'" }`.
   */
  local?: Record<string, string>;
  /**
   * A transaction-scoped advisory lock (two int4 keys) taken in the same round trip as BEGIN, so a
   * short transaction that starts by serializing on a lock pays no extra trip for it.
   */
  advisoryLock?: readonly [number, number];
  /** Waiting for a pooled connection longer than this fails instead. */
  connectTimeoutMs?: number;
}

/** One consistent read-only snapshot of the whole database. */
export const SNAPSHOT: TransactionOptions = { isolation: 'repeatable read', readOnly: true };

/** The BEGIN statement (with its SET LOCALs) of these options. */
function beginSql(opts: TransactionOptions): string {
  let begin = 'BEGIN';
  if (opts.isolation) begin += ` ISOLATION LEVEL ${opts.isolation.toUpperCase()}`;
  if (opts.readOnly) begin += ' READ ONLY';
  const lock = opts.advisoryLock;
  if (lock && !lock.every((k) => Number.isInteger(k) && k >= -2147483648 && k <= 2147483647)) {
    throw new TypeError(`advisory lock keys must be int4, got ${lock.join(', ')}`);
  }
  return [
    begin,
    ...Object.entries(opts.local ?? {}).map(([k, v]) => `SET LOCAL ${k} = ${v}`),
    ...(lock ? [`SELECT pg_advisory_xact_lock(${lock[0]}, ${lock[1]})`] : []),
  ].join('; ');
}

/** A pooled connection, or an error after `ms` (a connection that arrives later goes straight back). */
async function connectWithin(pool: pg.Pool, ms: number): Promise<pg.PoolClient> {
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const connecting = pool.connect();
  try {
    return await Promise.race([
      connecting,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(new Error(`no PostgreSQL connection within ${ms} ms`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (timedOut) void connecting.then((c) => c.release()).catch(() => undefined);
  }
}

/**
 * Runs fn in one transaction; rolls back on any error so nothing is half-written. Read-only
 * snapshots (REPEATABLE READ READ ONLY) go through here too.
 */
export async function withTransaction<T>(pool: pg.Pool, fn: (c: pg.PoolClient) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  const client = opts.connectTimeoutMs === undefined ? await pool.connect() : await connectWithin(pool, opts.connectTimeoutMs);
  try {
    await client.query(beginSql(opts));
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014', // statement timeout (or cancel): the server was too busy to answer in time
]);

/**
 * True when err says PostgreSQL cannot be reached or is refusing work right now (down, restarting,
 * too many connections, connection lost or not obtained in time), as opposed to a bad statement:
 * the API answers those with 503 SERVICE_UNAVAILABLE instead of 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
  if (err instanceof AggregateError && err.errors.some(isDatabaseUnavailable)) return true;
  return /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/.test(err.message);
}
