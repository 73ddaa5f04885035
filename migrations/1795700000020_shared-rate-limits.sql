-- Up Migration

-- The per-key and failed-authentication budgets that every API process shares
-- (src/lib/rate-limiter.ts, rate-limiter-flexible's PostgreSQL store, whose columns these are):
-- one row per limiter and key, `points` taken in the window that ends at `expire` (ms since
-- the epoch). UNLOGGED: a counter needs no WAL and no fsync at commit (each seller request
-- writes one row), and after a crash the budgets simply start again.
CREATE UNLOGGED TABLE rate_limits (
  key varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);

-- Down Migration
DROP TABLE rate_limits;
