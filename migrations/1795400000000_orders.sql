-- Up Migration

-- Orders (DECISIONS.md "Orders and events"): the frozen checkout snapshot, a commit-ordered change
-- position for polling, and the event outbox the webhook dispatcher delivers from.
--
-- The first schema kept only enough of an order for holds and salesCount; the columns below are
-- nullable where an operator order (no money) or those minimal rows leave them empty. The checkout
-- entry (src/orders) always fills them; CHECKs keep the money blocks all-or-nothing.
ALTER TABLE orders
  ADD COLUMN currency text CHECK (currency ~ '^[A-Z]{3}$'),
  ADD COLUMN customer jsonb,
  ADD COLUMN buyer_notes text,
  -- Frozen shipping option; NULL on operator orders (dispatch then accepts tracking or none).
  ADD COLUMN shipping_method text,
  ADD COLUMN shipping_cost integer CHECK (shipping_cost >= 0),
  ADD COLUMN shipping_tracked boolean,
  -- [{label, rate}] as entered; amounts are recomputed from the remaining lines.
  ADD COLUMN tax_rates jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN subtotal integer,
  ADD COLUMN tax integer,
  ADD COLUMN grand_total integer,
  -- [{label, rate, amount}] for the current totals; empty when tax is 0.
  ADD COLUMN tax_lines jsonb NOT NULL DEFAULT '[]',
  ADD COLUMN tracking_company text CHECK (length(tracking_company) BETWEEN 1 AND 255),
  ADD COLUMN tracking_number text CHECK (length(tracking_number) BETWEEN 1 AND 255),
  ADD COLUMN tracking_url text CHECK (length(tracking_url) <= 2048),
  -- Commit-ordered change position: the writing transaction's id and a sequence number, stamped
  -- on every insert and update. Pollers read (change_xid, change_seq) > cursor only below the
  -- feed guard (src/db/feed-guard), so a late-committing transaction is never passed over.
  ADD COLUMN change_xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  ADD COLUMN change_seq bigint,
  ADD CONSTRAINT orders_money_all_or_none CHECK (
    (has_money AND subtotal IS NOT NULL AND tax IS NOT NULL AND grand_total IS NOT NULL AND shipping_cost IS NOT NULL)
    OR (NOT has_money AND subtotal IS NULL AND tax IS NULL AND grand_total IS NULL AND shipping_cost IS NULL)
    OR (subtotal IS NULL AND tax IS NULL AND grand_total IS NULL AND shipping_method IS NULL)),
  ADD CONSTRAINT orders_tracking_pair CHECK ((tracking_company IS NULL) = (tracking_number IS NULL));

CREATE SEQUENCE order_change_seq;
UPDATE orders SET change_seq = nextval('order_change_seq');
ALTER TABLE orders ALTER COLUMN change_seq SET DEFAULT nextval('order_change_seq'), ALTER COLUMN change_seq SET NOT NULL;
ALTER TABLE orders ALTER COLUMN updated_at SET DEFAULT date_trunc('milliseconds', clock_timestamp());

-- Every update is a change of the order: a new position and change time (millisecond precision,
-- the value the API shows and `since` compares). Writers that mean "no change" (idempotent
-- repeats) do not update the row at all.
DROP TRIGGER touch ON orders;
CREATE FUNCTION stamp_order_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.change_xid := pg_current_xact_id();
  NEW.change_seq := nextval('order_change_seq');
  NEW.updated_at := greatest(date_trunc('milliseconds', clock_timestamp()), OLD.updated_at);
  RETURN NEW;
END $$;
CREATE TRIGGER stamp_change BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION stamp_order_change();

DROP INDEX orders_seller;
CREATE INDEX orders_seller_changes ON orders (seller_id, change_xid, change_seq);
CREATE INDEX orders_seller_updated ON orders (seller_id, updated_at);

-- Order lines, frozen at entry. `quantity` is what remains after line cancels; a line at 0 leaves
-- the order's `lines`. One line per sku per order (cancel names lines by sku), and its hold is the
-- `holds` row with the same (order_id, sku_id).
CREATE TABLE order_lines (
  order_id text NOT NULL REFERENCES orders ON DELETE CASCADE,
  position integer NOT NULL,
  sku_id integer NOT NULL CHECK (sku_id > 0),
  product_id integer NOT NULL CHECK (product_id > 0),
  quantity integer NOT NULL CHECK (quantity >= 0),
  ordered_quantity integer NOT NULL CHECK (ordered_quantity > 0),
  unit_price integer NOT NULL CHECK (unit_price >= 0),
  name text NOT NULL,
  set_name text NOT NULL,
  condition text NOT NULL,
  language text,
  finish text,
  external_ref text,
  disclosures jsonb,
  fulfillment_obligation jsonb,
  PRIMARY KEY (order_id, sku_id),
  UNIQUE (order_id, position)
);

-- The change feed learns about orders as orders, not as a change of the whole seller: an order
-- change re-indexes the offers of its own lines (their holds) and the seller's counters, never
-- every listing of the store.
ALTER TABLE change_feed DROP CONSTRAINT change_feed_entity_check;
ALTER TABLE change_feed ADD CONSTRAINT change_feed_entity_check
  CHECK (entity IN ('listing', 'seller', 'product', 'sku', 'store', 'variant', 'platform', 'order'));
DROP TRIGGER capture_ins ON orders;
DROP TRIGGER capture_upd ON orders;
DROP TRIGGER capture_del ON orders;
CALL capture('orders', 'order', 'r.seller_id', 'NULL', 'r.order_id');

-- Transactional outbox: one row per event, written in the same transaction as the order change.
-- `data` is the event's data JSON exactly as serialized at the change (the bytes every attempt
-- sends), so a delivery is byte-identical to the poll body of that moment. One row per event is
-- one delivery: a seller has at most one webhook endpoint (seller_webhooks).
CREATE TABLE webhook_events (
  event_id text PRIMARY KEY CHECK (length(event_id) BETWEEN 1 AND 128),
  seller_id integer NOT NULL REFERENCES sellers ON DELETE CASCADE,
  order_id text REFERENCES orders ON DELETE SET NULL,
  type text NOT NULL CHECK (type IN ('order.created', 'order.cancelled', 'order.refunded', 'inventory.adjusted')),
  api_version text NOT NULL DEFAULT '2026-07',
  created_at timestamptz NOT NULL,
  data text NOT NULL,
  -- pending: to be sent at next_attempt_at; delivered; failed (retries exhausted or 410);
  -- no_endpoint: the seller had no webhook when the event was written (polling serves it).
  state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'no_endpoint')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- A claimed delivery's lease: another dispatcher may take it only after this passes.
  locked_until timestamptz,
  last_status integer,
  last_error text,
  delivered_at timestamptz,
  failed_at timestamptz
);
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_events_seller ON webhook_events (seller_id, created_at);

-- Every attempt, for the delivery log and for tests that count them.
CREATE TABLE webhook_attempts (
  event_id text NOT NULL REFERENCES webhook_events ON DELETE CASCADE,
  attempt integer NOT NULL CHECK (attempt > 0),
  started_at timestamptz NOT NULL,
  duration_ms integer NOT NULL,
  status_code integer,
  error text,
  PRIMARY KEY (event_id, attempt)
);

-- A wake-up for the dispatcher; the table is the truth, NOTIFY only a hint.
CREATE FUNCTION webhook_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhook_events', '');
  RETURN NULL;
END $$;
CREATE TRIGGER notify AFTER INSERT ON webhook_events FOR EACH STATEMENT EXECUTE FUNCTION webhook_events_notify();

-- Down Migration
DROP TABLE IF EXISTS webhook_attempts, webhook_events, order_lines;
DROP FUNCTION IF EXISTS webhook_events_notify();
DROP TRIGGER IF EXISTS capture_ins ON orders;
DROP TRIGGER IF EXISTS capture_upd ON orders;
DROP TRIGGER IF EXISTS capture_del ON orders;
DELETE FROM change_feed WHERE entity = 'order';
ALTER TABLE change_feed DROP CONSTRAINT change_feed_entity_check;
ALTER TABLE change_feed ADD CONSTRAINT change_feed_entity_check
  CHECK (entity IN ('listing', 'seller', 'product', 'sku', 'store', 'variant', 'platform'));
CALL capture('orders', 'seller', 'r.seller_id', 'NULL', 'NULL');
DROP TRIGGER IF EXISTS stamp_change ON orders;
DROP FUNCTION IF EXISTS stamp_order_change();
CREATE TRIGGER touch BEFORE UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION touch_updated_at();
DROP INDEX IF EXISTS orders_seller_changes;
DROP INDEX IF EXISTS orders_seller_updated;
CREATE INDEX orders_seller ON orders (seller_id, updated_at, order_id);
ALTER TABLE orders
  DROP CONSTRAINT IF EXISTS orders_money_all_or_none,
  DROP CONSTRAINT IF EXISTS orders_tracking_pair,
  DROP COLUMN IF EXISTS currency, DROP COLUMN IF EXISTS customer, DROP COLUMN IF EXISTS buyer_notes,
  DROP COLUMN IF EXISTS shipping_method, DROP COLUMN IF EXISTS shipping_cost, DROP COLUMN IF EXISTS shipping_tracked,
  DROP COLUMN IF EXISTS tax_rates, DROP COLUMN IF EXISTS subtotal, DROP COLUMN IF EXISTS tax,
  DROP COLUMN IF EXISTS grand_total, DROP COLUMN IF EXISTS tax_lines, DROP COLUMN IF EXISTS tracking_company,
  DROP COLUMN IF EXISTS tracking_number, DROP COLUMN IF EXISTS tracking_url, DROP COLUMN IF EXISTS change_xid,
  DROP COLUMN IF EXISTS change_seq;
DROP SEQUENCE IF EXISTS order_change_seq;
