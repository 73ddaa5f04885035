-- Up Migration

-- Per webhook endpoint (one per seller), what every dispatcher needs to share to keep delivery fair
-- when endpoints hang or die (docs/webhooks.md "Fairness and the breaker"): whether the endpoint
-- answers, how many attempts in a row got no answer (the breaker opens at
-- WEBHOOK_BREAKER_FAILURES), and the one probe allowed while it is open. A row per seller_webhooks
-- row, kept by the trigger below; a new URL starts a new record.
CREATE TABLE webhook_endpoint_health (
  seller_id integer PRIMARY KEY REFERENCES seller_webhooks ON DELETE CASCADE,
  -- The URL this record is about (attempts sent to an earlier URL are not counted).
  url text NOT NULL,
  -- Attempts in a row that got no HTTP answer (timeout, refused or reset connection, DNS failure).
  failures integer NOT NULL DEFAULT 0 CHECK (failures >= 0),
  last_failure_at timestamptz,
  -- When an answer (any status) last brought the endpoint back to good standing (after a new URL,
  -- a failure or a slow answer), and whether the last answer was slow. NULL: nothing has answered
  -- since the URL was set.
  answered_at timestamptz,
  slow boolean NOT NULL DEFAULT false,
  -- The breaker's one probe in flight (any dispatcher): its event, attempt number and lease.
  probe_event_id text,
  probe_attempt integer,
  probe_until timestamptz
);

CREATE FUNCTION webhook_endpoint_health_reset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_endpoint_health (seller_id, url) VALUES (NEW.seller_id, NEW.url)
  ON CONFLICT (seller_id) DO UPDATE SET url = excluded.url, failures = 0, last_failure_at = NULL, answered_at = NULL,
    slow = false, probe_event_id = NULL, probe_attempt = NULL, probe_until = NULL;
  RETURN NULL;
END $$;
CREATE TRIGGER health_insert AFTER INSERT ON seller_webhooks FOR EACH ROW EXECUTE FUNCTION webhook_endpoint_health_reset();
CREATE TRIGGER health_new_url AFTER UPDATE OF url ON seller_webhooks FOR EACH ROW
  WHEN (OLD.url IS DISTINCT FROM NEW.url) EXECUTE FUNCTION webhook_endpoint_health_reset();
INSERT INTO webhook_endpoint_health (seller_id, url) SELECT seller_id, url FROM seller_webhooks;

-- Retention: the dispatcher deletes finished events (delivered, failed, no_endpoint) some days
-- after they finished, oldest first, in small batches. Pending events have no entry, so the
-- claim's update (attempts, locked_until) stays a HOT update.
CREATE INDEX webhook_events_finished ON webhook_events ((greatest(created_at, delivered_at, failed_at))) WHERE state <> 'pending';

-- Down Migration
DROP INDEX IF EXISTS webhook_events_finished;
DROP TRIGGER IF EXISTS health_new_url ON seller_webhooks;
DROP TRIGGER IF EXISTS health_insert ON seller_webhooks;
DROP TABLE IF EXISTS webhook_endpoint_health;
DROP FUNCTION IF EXISTS webhook_endpoint_health_reset();
