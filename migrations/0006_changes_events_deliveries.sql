-- Changes, unread counts, the event outbox and webhook deliveries.
--
-- One rule holds at every commit: a watch's unread_count is the number of
-- its changes with read_at IS NULL, and a user's badge count is the sum of
-- unread_count over the user's watches. Triggers below keep both, so every
-- writer (poller, reads from devices, pause, delete) stays correct without
-- repeating the arithmetic, and a change of a badge announces itself
-- (badge.updated) in the same transaction as the write that caused it.

-- ISO 8601 in UTC with milliseconds, as the REST API prints times.
CREATE FUNCTION iso8601(moment timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT to_char(moment AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- The extracted text behind content_hash (size-capped by the poller), so
-- the next change can carry a diff against it.
ALTER TABLE watches ADD COLUMN snapshot text CHECK (octet_length(snapshot) <= 65536);

CREATE TABLE changes (
    id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    -- Commit-independent total order, for reads "up to this change".
    position            bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    watch_id            uuid NOT NULL REFERENCES watches (id) ON DELETE CASCADE,
    user_id             uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    detected_at         timestamptz NOT NULL DEFAULT now(),
    previous_hash       text NOT NULL CHECK (previous_hash ~ '^[0-9a-f]{64}$'),
    new_hash            text NOT NULL CHECK (new_hash ~ '^[0-9a-f]{64}$' AND new_hash <> previous_hash),
    http_status         integer CHECK (http_status BETWEEN 100 AND 599),
    content_length      bigint CHECK (content_length >= 0),
    snapshot            text NOT NULL CHECK (octet_length(snapshot) <= 65536),
    snapshot_truncated  boolean NOT NULL DEFAULT false,
    -- A short unified diff from the previous snapshot.
    diff                text NOT NULL CHECK (octet_length(diff) <= 65536),
    read_at             timestamptz
);

CREATE INDEX changes_watch_detected_idx ON changes (watch_id, detected_at, id);
CREATE INDEX changes_unread_idx ON changes (watch_id, position) WHERE read_at IS NULL;

-- The outbox: every event is stored once, in the transaction of the state
-- change that caused it. user_id is NULL only for events about global
-- webhooks.
CREATE TABLE events (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id     uuid REFERENCES users (id) ON DELETE CASCADE,
    type        text NOT NULL CHECK (type IN (
                    'watch.changed', 'badge.updated', 'watch.failing', 'watch.recovered',
                    'webhook.disabled', 'webhook.test'
                )),
    data        jsonb NOT NULL CHECK (jsonb_typeof(data) = 'object'),
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- Retention pruning deletes by age.
CREATE INDEX events_created_idx ON events (created_at);

-- One delivery per (event, webhook). Its id is stable across attempts; the
-- event id is the webhook-id receivers use to drop duplicates.
CREATE TABLE deliveries (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    event_id         uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    webhook_id       uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    -- Set for absolute-value events (badge.updated: the user): a newer
    -- event with the same key replaces the event of a delivery that has not
    -- gone out yet, so a receiver gets the latest number once.
    supersede_key    uuid,
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
    attempt_count    integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    lease_owner      text,
    lease_until      timestamptz,
    last_attempt_at  timestamptz,
    last_status_code integer,
    last_error       text,
    completed_at     timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((lease_owner IS NULL) = (lease_until IS NULL)),
    CHECK ((status = 'pending') = (completed_at IS NULL))
);

-- The dispatcher claims due pending deliveries in next_attempt_at order.
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_webhook_created_idx ON deliveries (webhook_id, created_at, id);
CREATE INDEX deliveries_event_idx ON deliveries (event_id);
CREATE INDEX deliveries_supersede_idx ON deliveries (webhook_id, supersede_key)
    WHERE status = 'pending' AND supersede_key IS NOT NULL;

-- Stores an event and creates its deliveries: one per enabled webhook that
-- subscribes to the type and belongs to the user, plus global webhooks.
-- only_webhook targets a single webhook whatever its types (webhook.test);
-- except_webhook leaves one out (webhook.disabled goes to the others).
--
-- badge.updated is absolute, so a pending delivery of an older badge to
-- the same webhook that no dispatcher holds takes the new event instead of
-- a second delivery being queued; a new badge delivery waits the
-- coalescing window (session setting tidings.badge_coalesce, default 2 s)
-- so a burst of changes goes out as one delivery with the final count.
CREATE FUNCTION enqueue_event(
    event_user uuid,
    event_type text,
    event_data jsonb,
    only_webhook uuid DEFAULT NULL,
    except_webhook uuid DEFAULT NULL
) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
    new_event uuid;
    badge_delay interval := coalesce(
        nullif(current_setting('tidings.badge_coalesce', true), '')::interval,
        interval '2 seconds'
    );
BEGIN
    INSERT INTO events (user_id, type, data) VALUES (event_user, event_type, event_data)
    RETURNING id INTO new_event;

    WITH subscribers AS (
        SELECT w.id
        FROM webhooks w
        WHERE w.disabled_at IS NULL
          AND CASE
                WHEN only_webhook IS NOT NULL THEN w.id = only_webhook
                ELSE event_type = ANY (w.event_types)
                     AND (w.global OR w.user_id = event_user)
                     AND w.id IS DISTINCT FROM except_webhook
              END
    ), superseded AS (
        UPDATE deliveries d
        SET event_id = new_event, updated_at = now()
        FROM subscribers s
        WHERE event_type = 'badge.updated'
          AND d.webhook_id = s.id
          AND d.supersede_key = event_user
          AND d.status = 'pending'
          AND d.lease_owner IS NULL
        RETURNING d.webhook_id
    )
    INSERT INTO deliveries (event_id, webhook_id, supersede_key, next_attempt_at)
    SELECT new_event,
           s.id,
           CASE WHEN event_type = 'badge.updated' THEN event_user END,
           CASE WHEN event_type = 'badge.updated' THEN now() + badge_delay ELSE now() END
    FROM subscribers s
    WHERE s.id NOT IN (SELECT webhook_id FROM superseded);

    -- Delivered at commit, and only then: wakes dispatchers early.
    PERFORM pg_notify('tidings_deliveries', '');
    RETURN new_event;
END
$$;

-- What a push gateway needs to set every device's badge, without lookups:
-- the devices, and APNs and FCM payloads carrying the absolute count.
CREATE FUNCTION badge_event_data(badge_user uuid, badge_count bigint, badge_sequence bigint, badge_updated_at timestamptz)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
    WITH apns AS (
        SELECT jsonb_build_object(
            'headers', jsonb_build_object(
                'apns-push-type', 'alert',
                'apns-priority', '5',
                'apns-collapse-id', 'tidings-badge-' || badge_user
            ),
            'payload', jsonb_build_object('aps', jsonb_build_object('badge', badge_count))
        ) AS message
    )
    SELECT jsonb_build_object(
        'user_id', badge_user,
        'count', badge_count,
        'sequence', badge_sequence,
        'updated_at', iso8601(badge_updated_at),
        'devices', coalesce((
            SELECT jsonb_agg(jsonb_build_object('id', d.id, 'platform', d.platform, 'push_token', d.push_token)
                             ORDER BY d.created_at, d.id)
            FROM devices d
            WHERE d.user_id = badge_user
        ), '[]'::jsonb),
        'push', jsonb_build_object(
            'apns', apns.message,
            'fcm', jsonb_build_object(
                'android', jsonb_build_object('notification', jsonb_build_object('notification_count', badge_count)),
                'apns', apns.message
            )
        )
    )
    FROM apns
$$;

-- changes -> watches.unread_count, one UPDATE per statement.
CREATE FUNCTION changes_count_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE watches w
    SET unread_count = w.unread_count + added.unread
    FROM (SELECT watch_id, count(*) AS unread FROM inserted WHERE read_at IS NULL GROUP BY watch_id) added
    WHERE w.id = added.watch_id;
    RETURN NULL;
END
$$;

-- Statement triggers fire for zero rows too; the early returns keep an
-- UPDATE that changes nothing relevant from cascading (and from recursing
-- between changes and watches).
CREATE FUNCTION changes_count_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE (n.read_at IS NULL) <> (o.read_at IS NULL)
    ) THEN
        RETURN NULL;
    END IF;
    UPDATE watches w
    SET unread_count = w.unread_count + delta.unread
    FROM (
        SELECT n.watch_id,
               sum((n.read_at IS NULL)::integer - (o.read_at IS NULL)::integer) AS unread
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        GROUP BY n.watch_id
    ) delta
    WHERE w.id = delta.watch_id AND delta.unread <> 0;
    RETURN NULL;
END
$$;

CREATE FUNCTION changes_count_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE watches w
    SET unread_count = w.unread_count - removed.unread
    FROM (SELECT watch_id, count(*) AS unread FROM old_rows WHERE read_at IS NULL GROUP BY watch_id) removed
    WHERE w.id = removed.watch_id;
    RETURN NULL;
END
$$;

CREATE TRIGGER changes_count_inserted AFTER INSERT ON changes
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION changes_count_inserted();
CREATE TRIGGER changes_count_updated AFTER UPDATE ON changes
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION changes_count_updated();
CREATE TRIGGER changes_count_deleted AFTER DELETE ON changes
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION changes_count_deleted();

-- watches -> badges.count, one UPDATE per user per statement, so a
-- read-all over many watches is one change of the badge and one event.
-- Pausing a watch reads its changes: a paused watch counts for nothing.
CREATE FUNCTION watches_count_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.unread_count <> o.unread_count
    ) THEN
        UPDATE badges b
        SET count = b.count + delta.unread
        FROM (
            SELECT n.user_id, sum(n.unread_count - o.unread_count) AS unread
            FROM new_rows n JOIN old_rows o ON o.id = n.id
            GROUP BY n.user_id
        ) delta
        WHERE b.user_id = delta.user_id AND delta.unread <> 0;
    END IF;

    IF EXISTS (
        SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.paused AND NOT o.paused AND n.unread_count > 0
    ) THEN
        UPDATE changes c
        SET read_at = now()
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.paused AND NOT o.paused AND c.watch_id = n.id AND c.read_at IS NULL;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION watches_count_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE badges b
    SET count = b.count - removed.unread
    FROM (SELECT user_id, sum(unread_count) AS unread FROM old_rows GROUP BY user_id) removed
    WHERE b.user_id = removed.user_id AND removed.unread <> 0;
    RETURN NULL;
END
$$;

CREATE TRIGGER watches_count_updated AFTER UPDATE ON watches
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION watches_count_updated();
CREATE TRIGGER watches_count_deleted AFTER DELETE ON watches
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION watches_count_deleted();

-- Every change of a badge's count moves its sequence by one and is
-- announced as badge.updated, except while the user itself is being
-- deleted (its watches cascade away with it; nobody is left to tell).
CREATE FUNCTION badges_advance_sequence() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.sequence := OLD.sequence + 1;
    NEW.updated_at := now();
    RETURN NEW;
END
$$;

CREATE FUNCTION badges_announce() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM users WHERE id = NEW.user_id) THEN
        PERFORM enqueue_event(
            NEW.user_id,
            'badge.updated',
            badge_event_data(NEW.user_id, NEW.count, NEW.sequence, NEW.updated_at)
        );
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER badges_advance_sequence BEFORE UPDATE OF count ON badges
    FOR EACH ROW WHEN (NEW.count IS DISTINCT FROM OLD.count)
    EXECUTE FUNCTION badges_advance_sequence();
CREATE TRIGGER badges_announce AFTER UPDATE OF count ON badges
    FOR EACH ROW WHEN (NEW.count IS DISTINCT FROM OLD.count)
    EXECUTE FUNCTION badges_announce();

-- The one way a detected content change is written: the new hash and
-- snapshot on the watch, the change row (which raises the watch's unread
-- count and the user's badge through the triggers above, announcing
-- badge.updated) and the watch.changed event, all in the caller's
-- transaction. The first hash of a watch is its baseline and announces
-- nothing; so does an unchanged hash, and so does any hash of a paused
-- watch (it is kept current so resuming does not report old news).
-- Returns the change id, or NULL when nothing changed.
CREATE FUNCTION record_change(
    changed_watch uuid,
    new_hash text,
    new_snapshot text,
    new_snapshot_truncated boolean,
    change_diff text,
    change_http_status integer,
    change_content_length bigint
) RETURNS uuid
LANGUAGE plpgsql AS $$
DECLARE
    watch watches%ROWTYPE;
    new_change uuid;
    change_time timestamptz;
    unread integer;
    total bigint;
BEGIN
    SELECT * INTO watch FROM watches WHERE id = changed_watch FOR UPDATE;
    IF NOT FOUND OR watch.content_hash IS NOT DISTINCT FROM new_hash THEN
        RETURN NULL;
    END IF;

    UPDATE watches
    SET content_hash = new_hash,
        snapshot = new_snapshot,
        last_changed_at = CASE WHEN watch.content_hash IS NULL OR watch.paused THEN last_changed_at ELSE now() END,
        updated_at = now()
    WHERE id = changed_watch;
    IF watch.content_hash IS NULL OR watch.paused THEN
        RETURN NULL;
    END IF;

    INSERT INTO changes (watch_id, user_id, previous_hash, new_hash, http_status, content_length,
                         snapshot, snapshot_truncated, diff)
    VALUES (changed_watch, watch.user_id, watch.content_hash, new_hash, change_http_status, change_content_length,
            new_snapshot, new_snapshot_truncated, change_diff)
    RETURNING id, detected_at INTO new_change, change_time;

    SELECT unread_count INTO unread FROM watches WHERE id = changed_watch;
    SELECT count INTO total FROM badges WHERE user_id = watch.user_id;
    PERFORM enqueue_event(watch.user_id, 'watch.changed', jsonb_build_object(
        'watch_id', watch.id,
        'name', watch.name,
        'url', (SELECT url FROM targets WHERE id = watch.target_id),
        'change_id', new_change,
        'detected_at', iso8601(change_time),
        'previous_hash', watch.content_hash,
        'new_hash', new_hash,
        'unread_count', unread,
        'unread_total', total,
        'diff', change_diff
    ));
    RETURN new_change;
END
$$;
