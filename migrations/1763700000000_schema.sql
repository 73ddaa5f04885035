-- Up Migration

-- Every mutable table keeps updated_at itself, so no writer can forget it.
CREATE FUNCTION touch_updated_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := clock_timestamp();
  RETURN NEW;
END $$;

-- Singleton row for platform-wide switches.
CREATE TABLE platform_settings (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  po_box_suspended boolean NOT NULL DEFAULT false,
  current_terms_version text NOT NULL DEFAULT '2026-07',
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
INSERT INTO platform_settings DEFAULT VALUES;

CREATE TABLE sellers (
  seller_id integer PRIMARY KEY CHECK (seller_id > 0),
  seller_code text NOT NULL UNIQUE CHECK (seller_code ~ '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$'),
  store_name text NOT NULL,
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  region text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  vacation boolean NOT NULL DEFAULT false,
  inventory_source text NOT NULL DEFAULT 'platform' CHECK (inventory_source IN ('platform', 'manual', 'csv')),
  po_box_delivery text NOT NULL DEFAULT 'available' CHECK (po_box_delivery IN ('available', 'seller_declines')),
  terms_version text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- Prerequisites recorded on the seller's record. SELLER_ACTIVE and VACATION_DISABLED are derived
-- from columns and never stored here; CURRENT_SELLER_TERMS_ACCEPTED is derived from terms_version
-- (seller_readiness) and may also be recorded here by ops.
CREATE TABLE seller_prerequisites (
  seller_id integer NOT NULL REFERENCES sellers ON DELETE CASCADE,
  code text NOT NULL CHECK (code IN (
    'SHIPPING_OPTION_CONFIGURED', 'CONNECTED_ACCOUNT_CANADIAN', 'PAYOUTS_READY',
    'CURRENT_SELLER_TERMS_ACCEPTED', 'TAX_PROFILE_COMPLETE', 'CANADIAN_SHIPMENT_ORIGIN_CONFIRMED',
    'AUTHENTICATOR_ENROLLED', 'AUTHENTICATOR_RECOVERY_VERIFIED', 'OPERATOR_REVIEW_APPROVED',
    'SHOP_LINK_ACTIVE', 'BILLING_TERMS_ACCEPTED')),
  PRIMARY KEY (seller_id, code)
);

CREATE TABLE seller_shipping_options (
  seller_id integer NOT NULL REFERENCES sellers ON DELETE CASCADE,
  method text NOT NULL,
  cost integer NOT NULL CHECK (cost >= 0),
  tracked boolean NOT NULL,
  position integer NOT NULL,
  PRIMARY KEY (seller_id, method)
);

-- Reviews are keyed by position so that reloading the same list is a no-op.
CREATE TABLE seller_reviews (
  seller_id integer NOT NULL REFERENCES sellers ON DELETE CASCADE,
  position integer NOT NULL,
  score smallint NOT NULL CHECK (score BETWEEN 1 AND 5),
  PRIMARY KEY (seller_id, position)
);

-- Only a SHA-256 of the whole key is stored; the plaintext is shown once when issued.
CREATE TABLE api_keys (
  key_id bigserial PRIMARY KEY,
  seller_id integer NOT NULL REFERENCES sellers ON DELETE CASCADE,
  key_hash bytea NOT NULL UNIQUE,
  label text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_seller ON api_keys (seller_id) WHERE revoked_at IS NULL;

CREATE TABLE seller_webhooks (
  seller_id integer PRIMARY KEY REFERENCES sellers ON DELETE CASCADE,
  url text NOT NULL,
  secret text NOT NULL,
  cancel_event text NOT NULL DEFAULT 'order.cancelled' CHECK (cancel_event IN ('order.cancelled', 'inventory.adjusted')),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE products (
  product_id integer PRIMARY KEY CHECK (product_id > 0),
  name text,
  set_name text,
  category text,
  rarity text,
  collector_number text,
  image_url text,
  details jsonb NOT NULL DEFAULT '[]',
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE skus (
  sku_id integer PRIMARY KEY CHECK (sku_id > 0),
  product_id integer NOT NULL REFERENCES products,
  condition text,
  language text,
  finish text,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX skus_product ON skus (product_id);

-- One listing per (seller, sku). product_id is kept even when unmatched (the seller's claim).
CREATE TABLE listings (
  listing_id bigserial UNIQUE,
  seller_id integer NOT NULL REFERENCES sellers ON DELETE CASCADE,
  sku_id integer NOT NULL CHECK (sku_id > 0),
  product_id integer NOT NULL CHECK (product_id > 0),
  price integer NOT NULL CHECK (price >= 0),
  quantity integer NOT NULL CHECK (quantity >= 0),
  external_ref text CHECK (length(external_ref) <= 255),
  as_of timestamptz,
  match_status text NOT NULL CHECK (match_status IN ('matched', 'unmatched')),
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (seller_id, sku_id)
);
CREATE INDEX listings_sku ON listings (sku_id);
CREATE INDEX listings_product ON listings (product_id);
CREATE INDEX listings_export ON listings (seller_id, updated_at, listing_id);

-- Minimal order rows: enough for holds and salesCount. The orders issue extends this table.
CREATE TABLE orders (
  order_id text PRIMARY KEY CHECK (length(order_id) >= 1),
  seller_id integer NOT NULL REFERENCES sellers,
  status text NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'accepted', 'shipped', 'delivered', 'cancelled', 'refunded')),
  has_money boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', clock_timestamp()),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX orders_seller ON orders (seller_id, updated_at, order_id);

-- A hold is outstanding while its order is created/accepted and no listing write with
-- as_of >= order.created_at has superseded it; that rule is evaluated at read time.
CREATE TABLE holds (
  order_id text NOT NULL REFERENCES orders ON DELETE CASCADE,
  seller_id integer NOT NULL,
  sku_id integer NOT NULL,
  quantity integer NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (order_id, seller_id, sku_id)
);
CREATE INDEX holds_listing ON holds (seller_id, sku_id);

CREATE TABLE handoff_stores (
  store_slug text PRIMARY KEY CHECK (length(store_slug) BETWEEN 1 AND 128),
  store_name text NOT NULL,
  seller_code text UNIQUE,
  active boolean NOT NULL DEFAULT true,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

CREATE TABLE handoff_store_reviews (
  store_slug text NOT NULL REFERENCES handoff_stores ON DELETE CASCADE,
  position integer NOT NULL,
  score smallint NOT NULL CHECK (score BETWEEN 1 AND 5),
  PRIMARY KEY (store_slug, position)
);

CREATE TABLE handoff_variants (
  variant_id integer PRIMARY KEY CHECK (variant_id > 0),
  store_slug text NOT NULL REFERENCES handoff_stores ON DELETE CASCADE,
  sku_id integer NOT NULL CHECK (sku_id > 0),
  product_id integer NOT NULL CHECK (product_id > 0),
  price integer NOT NULL CHECK (price >= 0),
  quantity integer NOT NULL CHECK (quantity >= 0),
  match_status text NOT NULL CHECK (match_status IN ('matched', 'unmatched')),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX handoff_variants_store ON handoff_variants (store_slug);
CREATE INDEX handoff_variants_sku ON handoff_variants (sku_id);
CREATE INDEX handoff_variants_product ON handoff_variants (product_id);

CREATE TRIGGER touch BEFORE UPDATE ON platform_settings FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
CREATE TRIGGER touch BEFORE UPDATE ON sellers FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
CREATE TRIGGER touch BEFORE UPDATE ON seller_webhooks FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
CREATE TRIGGER touch BEFORE UPDATE ON products FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
CREATE TRIGGER touch BEFORE UPDATE ON skus FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
CREATE TRIGGER touch BEFORE UPDATE ON listings FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
CREATE TRIGGER touch BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
CREATE TRIGGER touch BEFORE UPDATE ON handoff_stores FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
CREATE TRIGGER touch BEFORE UPDATE ON handoff_variants FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

-- Durable change feed, written by triggers in the same transaction as the change, so a change
-- can never be committed without its feed row. xid lets the indexer consume only rows of
-- transactions that have finished (ids commit out of order; see indexer/change-feed.ts).
CREATE TABLE change_feed (
  id bigserial PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  entity text NOT NULL CHECK (entity IN ('listing', 'seller', 'product', 'sku', 'store', 'variant', 'platform')),
  k1 bigint,
  k2 bigint,
  ktext text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX change_feed_position ON change_feed (xid, id);

-- Where each consumer has got to; advanced only after Elasticsearch acknowledged a batch.
CREATE TABLE feed_checkpoints (
  consumer text PRIMARY KEY,
  xid xid8 NOT NULL,
  id bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);

-- One wake-up per statement; NOTIFY is only a hint, the feed table is the truth.
CREATE FUNCTION change_feed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('change_feed', '');
  RETURN NULL;
END $$;
CREATE TRIGGER notify AFTER INSERT ON change_feed FOR EACH STATEMENT EXECUTE FUNCTION change_feed_notify();

-- Statement-level capture with transition tables: one INSERT ... SELECT per statement, so a
-- bulk load of millions of rows costs one feed insert per statement, not a trigger call per row.
-- TG_ARGV[0] = entity, TG_ARGV[1..] = SQL expressions over the transition row `r` for k1, k2, ktext.
CREATE FUNCTION capture_changes() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  -- DISTINCT: an UPDATE sees each row twice (old and new), a bulk statement may name a key often.
  sel text := format('SELECT DISTINCT %L, (%s)::bigint, (%s)::bigint, (%s)::text FROM ', TG_ARGV[0], TG_ARGV[1], TG_ARGV[2], TG_ARGV[3]);
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE 'INSERT INTO change_feed (entity, k1, k2, ktext) ' || sel || 'new_rows r';
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE 'INSERT INTO change_feed (entity, k1, k2, ktext) ' || sel || 'old_rows r';
  ELSE
    EXECUTE 'INSERT INTO change_feed (entity, k1, k2, ktext) ' || sel || '(SELECT * FROM new_rows UNION ALL SELECT * FROM old_rows) r';
  END IF;
  RETURN NULL;
END $$;

CREATE PROCEDURE capture(tbl text, entity text, k1 text, k2 text, ktext text) LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE TRIGGER capture_ins AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION capture_changes(%L, %L, %L, %L)', tbl, entity, k1, k2, ktext);
  EXECUTE format('CREATE TRIGGER capture_upd AFTER UPDATE ON %I REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION capture_changes(%L, %L, %L, %L)', tbl, entity, k1, k2, ktext);
  EXECUTE format('CREATE TRIGGER capture_del AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION capture_changes(%L, %L, %L, %L)', tbl, entity, k1, k2, ktext);
END $$;

CALL capture('platform_settings', 'platform', 'NULL', 'NULL', 'NULL');
CALL capture('sellers', 'seller', 'r.seller_id', 'NULL', 'NULL');
CALL capture('seller_prerequisites', 'seller', 'r.seller_id', 'NULL', 'NULL');
CALL capture('seller_shipping_options', 'seller', 'r.seller_id', 'NULL', 'NULL');
CALL capture('seller_reviews', 'seller', 'r.seller_id', 'NULL', 'NULL');
CALL capture('products', 'product', 'r.product_id', 'NULL', 'NULL');
CALL capture('skus', 'sku', 'r.sku_id', 'NULL', 'NULL');
CALL capture('listings', 'listing', 'r.seller_id', 'r.sku_id', 'NULL');
CALL capture('holds', 'listing', 'r.seller_id', 'r.sku_id', 'NULL');
-- An order's status decides whether its holds are outstanding and whether it counts in salesCount.
CALL capture('orders', 'seller', 'r.seller_id', 'NULL', 'NULL');
CALL capture('handoff_stores', 'store', 'NULL', 'NULL', 'r.store_slug');
CALL capture('handoff_store_reviews', 'store', 'NULL', 'NULL', 'r.store_slug');
CALL capture('handoff_variants', 'variant', 'r.variant_id', 'NULL', 'NULL');

-- A catalog sku arriving (or leaving) changes the match status of listings and variants that name it.
CREATE FUNCTION rematch_on_sku_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE listings l SET match_status = 'matched' FROM new_rows n WHERE l.sku_id = n.sku_id AND l.match_status <> 'matched';
  UPDATE handoff_variants v SET match_status = 'matched' FROM new_rows n WHERE v.sku_id = n.sku_id AND v.match_status <> 'matched';
  RETURN NULL;
END $$;
CREATE FUNCTION rematch_on_sku_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE listings l SET match_status = 'unmatched' FROM old_rows o WHERE l.sku_id = o.sku_id AND l.match_status <> 'unmatched';
  UPDATE handoff_variants v SET match_status = 'unmatched' FROM old_rows o WHERE v.sku_id = o.sku_id AND v.match_status <> 'unmatched';
  RETURN NULL;
END $$;
CREATE TRIGGER rematch_ins AFTER INSERT ON skus REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rematch_on_sku_insert();
CREATE TRIGGER rematch_del AFTER DELETE ON skus REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rematch_on_sku_delete();

-- Down Migration
DROP TABLE IF EXISTS feed_checkpoints, change_feed, handoff_variants, handoff_store_reviews, handoff_stores,
  holds, orders, listings, skus, products, seller_webhooks, api_keys, seller_reviews, seller_shipping_options,
  seller_prerequisites, sellers, platform_settings CASCADE;
DROP PROCEDURE IF EXISTS capture(text, text, text, text, text);
DROP FUNCTION IF EXISTS capture_changes(), change_feed_notify(), rematch_on_sku_insert(), rematch_on_sku_delete(), touch_updated_at();
