-- Up Migration

-- A listing update that leaves its key, product, quantity, match status and deletion as they were
-- (a repricing; a new external_ref or as_of) changes its offer document and no card: a card shows
-- which offers are shown and their groups, never a price (docs/indexing.md). Its feed row says so
-- (offer_only), and the indexer then rewrites the offer without reading where the index has it or
-- testing its card: the two realtime reads per offer that made a store-wide repricing drain at
-- less than half the rebuild's rate. Every other change, holds included, stays offer_only = false.
ALTER TABLE change_feed ADD COLUMN offer_only boolean NOT NULL DEFAULT false;

CREATE FUNCTION capture_listing_updates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_feed (entity, k1, k2, offer_only)
  SELECT 'listing', k1, k2, bool_and(offer_only)
    FROM (SELECT n.seller_id AS k1, n.sku_id AS k2,
                 (o.seller_id, o.sku_id, o.product_id, o.quantity, o.match_status, o.deleted_at)
                   IS NOT DISTINCT FROM (n.seller_id, n.sku_id, n.product_id, n.quantity, n.match_status, n.deleted_at) AS offer_only
            FROM new_rows n LEFT JOIN old_rows o USING (listing_id)
          UNION ALL
          -- A row whose key moved: its old key loses its offer.
          SELECT o.seller_id, o.sku_id, false
            FROM old_rows o LEFT JOIN new_rows n USING (listing_id)
           WHERE n.listing_id IS NULL OR (n.seller_id, n.sku_id) <> (o.seller_id, o.sku_id)) x
   GROUP BY k1, k2;
  RETURN NULL;
END $$;

DROP TRIGGER capture_upd ON listings;
CREATE TRIGGER capture_upd AFTER UPDATE ON listings REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION capture_listing_updates();

-- Down Migration
DROP TRIGGER IF EXISTS capture_upd ON listings;
CREATE TRIGGER capture_upd AFTER UPDATE ON listings REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION capture_changes('listing', 'r.seller_id', 'r.sku_id', 'NULL');
DROP FUNCTION IF EXISTS capture_listing_updates();
ALTER TABLE change_feed DROP COLUMN IF EXISTS offer_only;
