import type pg from 'pg';

// The shared limiter's table (`rate_limits`, rows written by rate-limiter-flexible: src/lib/rate-limiter.ts).
// Seller-key rows are as many as the keys; failed-authentication rows are one per client address, so
// rotating addresses would grow the table without a bound. The sweep keeps it bounded: rows whose
// window has ended go, and above `maxRows` the failed-authentication rows holding the fewest points
// go first (forgetting an address that failed a few times gives it back only those few attempts).

export interface SweepResult {
  expired: number;
  evicted: number;
}

export async function sweepRateLimits(pool: pg.Pool, maxRows: number, now = Date.now()): Promise<SweepResult> {
  const expired = await pool.query('DELETE FROM rate_limits WHERE expire < $1', [now]);
  const evicted = await pool.query(
    `WITH excess AS (SELECT greatest(count(*) - $1, 0) AS n FROM rate_limits)
     DELETE FROM rate_limits WHERE key IN (
       SELECT key FROM rate_limits WHERE key LIKE $2 ORDER BY points, expire LIMIT (SELECT n FROM excess)
     )`,
    [maxRows, `${AUTH_FAILURES_PREFIX}:%`],
  );
  return { expired: expired.rowCount ?? 0, evicted: evicted.rowCount ?? 0 };
}

/** The key prefix of the failed-authentication limiter (rate-limiter-flexible writes `<prefix>:<key>`). */
export const AUTH_FAILURES_PREFIX = 'auth-failures';
