-- The webhook dispatcher's state: every attempt of a delivery, and how long
-- a webhook has been failing.

-- Since the first failed attempt after the last successful one; NULL while
-- the webhook delivers. A webhook failing this long past the configured
-- limit (TIDINGS_WEBHOOK_DISABLE_AFTER) is disabled.
ALTER TABLE webhooks ADD COLUMN failing_since timestamptz;

-- One row per HTTP attempt, kept with its delivery (and pruned with it when
-- the event ages out). event_id is the event actually sent: a badge.updated
-- delivery may carry a newer event than the one it was created for.
CREATE TABLE delivery_attempts (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    delivery_id         uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    event_id            uuid NOT NULL,
    attempted_at        timestamptz NOT NULL,
    duration_ms         integer NOT NULL CHECK (duration_ms >= 0),
    -- NULL when no response arrived (timeout, refused, blocked address).
    status_code         integer CHECK (status_code BETWEEN 100 AND 599),
    error               text CHECK (char_length(error) <= 1000),
    -- The start of the response body, at most 16 KiB.
    response_body       text CHECK (octet_length(response_body) <= 16384),
    response_truncated  boolean NOT NULL DEFAULT false,
    CHECK (status_code IS NOT NULL OR error IS NOT NULL)
);

CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, attempted_at);

-- The per-webhook in-flight cap counts live leases per webhook at claim time.
CREATE INDEX deliveries_leased_idx ON deliveries (webhook_id) WHERE lease_owner IS NOT NULL;

-- Claims read due deliveries in (next_attempt_at, id) order. The id breaks
-- the ties of a burst (every delivery of one transaction has the same
-- next_attempt_at) in random order, so a claim sees all webhooks of the
-- burst instead of the first webhook's deliveries only, which the
-- per-webhook cap would then mostly refuse.
DROP INDEX deliveries_due_idx;
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at, id) WHERE status = 'pending';

-- A queue table: every delivery is updated twice (leased, finished), and
-- claims walk the due index from its start, so dead entries are vacuumed
-- away early rather than at the default 20 % of the table.
ALTER TABLE deliveries SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.05, autovacuum_analyze_scale_factor = 0.02);
