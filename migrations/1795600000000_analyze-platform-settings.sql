-- Up Migration

-- Autovacuum never analyzes the one-row platform_settings table (it never reaches the change
-- threshold), so without statistics the planner guesses it holds ~1,000 rows and the checkout
-- entry's facts query (joined through seller_readiness) hash-joins every listing: ~6 ms per order
-- instead of ~1 ms. One ANALYZE gives it the true row count for good.
ANALYZE platform_settings;

-- Down Migration
SELECT 1;
