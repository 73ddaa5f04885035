-- Up Migration

-- The same mark as listings' (1795900000000_feed-offer-only.sql) for handoff variants: an update
-- that keeps the variant's id, store, sku, product, quantity and match status (a handoff store
-- repricing) changes its offer document and no card.
CREATE FUNCTION capture_variant_updates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO change_feed (entity, k1, offer_only)
  SELECT 'variant', k1, bool_and(offer_only)
    FROM (SELECT n.variant_id AS k1,
                 (o.store_slug, o.sku_id, o.product_id, o.quantity, o.match_status)
                   IS NOT DISTINCT FROM (n.store_slug, n.sku_id, n.product_id, n.quantity, n.match_status) AS offer_only
            FROM new_rows n LEFT JOIN old_rows o USING (variant_id)
          UNION ALL
          -- A variant whose id moved: its old id loses its offer.
          SELECT o.variant_id, false
            FROM old_rows o LEFT JOIN new_rows n USING (variant_id)
           WHERE n.variant_id IS NULL) x
   GROUP BY k1;
  RETURN NULL;
END $$;

DROP TRIGGER capture_upd ON handoff_variants;
CREATE TRIGGER capture_upd AFTER UPDATE ON handoff_variants REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION capture_variant_updates();

-- Down Migration
DROP TRIGGER IF EXISTS capture_upd ON handoff_variants;
CREATE TRIGGER capture_upd AFTER UPDATE ON handoff_variants REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION capture_changes('variant', 'r.variant_id', 'NULL', 'NULL');
DROP FUNCTION IF EXISTS capture_variant_updates();
