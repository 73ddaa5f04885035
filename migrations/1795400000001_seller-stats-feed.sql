-- Up Migration

-- A review changes only the seller's counters (reviewScore), which buyer reads join from the
-- seller document at read time (docs/search-design.md). Its feed rows say so with
-- ktext = 'stats' (indexer/fan-out.ts SELLER_STATS), so the indexer rewrites the seller document
-- alone instead of every offer of the store, as it does for a change of the seller itself.
DROP TRIGGER capture_ins ON seller_reviews;
DROP TRIGGER capture_upd ON seller_reviews;
DROP TRIGGER capture_del ON seller_reviews;
CALL capture('seller_reviews', 'seller', 'r.seller_id', 'NULL', '''stats''');

-- salesCount is recounted for the seller document on every order change of the store: the orders
-- that count, alone in a partial index, keep that an index-only count.
CREATE INDEX orders_sales ON orders (seller_id) WHERE has_money AND status NOT IN ('cancelled', 'refunded');

-- Down Migration
DROP INDEX IF EXISTS orders_sales;
DROP TRIGGER IF EXISTS capture_ins ON seller_reviews;
DROP TRIGGER IF EXISTS capture_upd ON seller_reviews;
DROP TRIGGER IF EXISTS capture_del ON seller_reviews;
CALL capture('seller_reviews', 'seller', 'r.seller_id', 'NULL', 'NULL');
