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

-- Global webhooks receive every user's events.
CREATE INDEX webhooks_global_idx ON webhooks (id) WHERE global;

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
        -- Two index lookups rather than one OR over every webhook.
        SELECT w.id FROM webhooks w
        WHERE only_webhook IS NOT NULL AND w.id = only_webhook AND w.disabled_at IS NULL
        UNION ALL
        SELECT w.id FROM webhooks w
        WHERE only_webhook IS NULL AND w.user_id = event_user
          AND w.disabled_at IS NULL AND event_type = ANY (w.event_types)
          AND w.id IS DISTINCT FROM except_webhook
        UNION ALL
        SELECT w.id FROM webhooks w
        WHERE only_webhook IS NULL AND w.global
          AND w.disabled_at IS NULL AND event_type = ANY (w.event_types)
          AND w.id IS DISTINCT FROM except_webhook
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
-- PL/pgSQL rather than SQL: its statements' plans are cached per session.
LANGUAGE plpgsql STABLE AS $$
DECLARE
    apns jsonb := jsonb_build_object(
        'headers', jsonb_build_object(
            'apns-push-type', 'alert',
            'apns-priority', '5',
            'apns-collapse-id', 'tidings-badge-' || badge_user
        ),
        'payload', jsonb_build_object('aps', jsonb_build_object('badge', badge_count))
    );
    device_list jsonb;
BEGIN
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'platform', d.platform, 'push_token', d.push_token)
                              ORDER BY d.created_at, d.id), '[]'::jsonb)
    INTO device_list
    FROM devices d
    WHERE d.user_id = badge_user;
    RETURN jsonb_build_object(
        'user_id', badge_user,
        'count', badge_count,
        'sequence', badge_sequence,
        'updated_at', iso8601(badge_updated_at),
        'devices', device_list,
        'push', jsonb_build_object(
            'apns', apns,
            'fcm', jsonb_build_object(
                'android', jsonb_build_object('notification', jsonb_build_object('notification_count', badge_count)),
                'apns', apns
            )
        )
    );
END
$$;

-- changes -> watches.unread_count, one UPDATE per statement.
CREATE FUNCTION changes_count_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM watches WHERE id IN (SELECT watch_id FROM inserted) ORDER BY id FOR UPDATE;
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
    PERFORM 1 FROM watches WHERE id IN (SELECT watch_id FROM new_rows) ORDER BY id FOR UPDATE;
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
-- badge.updated is absolute, so a pending delivery of an older badge that
-- no dispatcher holds takes the new event instead of a second delivery
-- being queued, and a new badge delivery waits the coalescing window.
CREATE FUNCTION badges_advance_sequence() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.sequence := OLD.sequence + 1;
    NEW.updated_at := now();
    RETURN NEW;
END
$$;

-- Set-based, once per statement: a batch of changes for many users
-- queues all their badges with one INSERT of events and one of deliveries,
-- with the same supersede and coalescing rules as enqueue_event.
CREATE FUNCTION badges_announce() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    badge_delay interval := coalesce(
        nullif(current_setting('tidings.badge_coalesce', true), '')::interval,
        interval '2 seconds'
    );
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM new_rows n JOIN old_rows o ON o.user_id = n.user_id WHERE n.count <> o.count
    ) THEN
        RETURN NULL;
    END IF;

    WITH changed AS (
        SELECT n.user_id, n.count, n.sequence, n.updated_at
        FROM new_rows n JOIN old_rows o ON o.user_id = n.user_id
        WHERE n.count <> o.count AND EXISTS (SELECT 1 FROM users u WHERE u.id = n.user_id)
    ), announced AS (
        INSERT INTO events (user_id, type, data)
        SELECT c.user_id, 'badge.updated', badge_event_data(c.user_id, c.count, c.sequence, c.updated_at)
        FROM changed c
        RETURNING id, user_id
    ), subscribers AS (
        SELECT a.id AS event_id, a.user_id, h.id AS webhook_id
        FROM announced a JOIN webhooks h ON h.user_id = a.user_id
        WHERE h.disabled_at IS NULL AND 'badge.updated' = ANY (h.event_types)
        UNION ALL
        SELECT a.id, a.user_id, h.id
        FROM announced a CROSS JOIN webhooks h
        WHERE h.global AND h.disabled_at IS NULL AND 'badge.updated' = ANY (h.event_types)
    ), superseded AS (
        UPDATE deliveries d
        SET event_id = s.event_id, updated_at = now()
        FROM subscribers s
        WHERE d.webhook_id = s.webhook_id
          AND d.supersede_key = s.user_id
          AND d.status = 'pending'
          AND d.lease_owner IS NULL
        RETURNING d.webhook_id, d.supersede_key
    )
    INSERT INTO deliveries (event_id, webhook_id, supersede_key, next_attempt_at)
    SELECT s.event_id, s.webhook_id, s.user_id, now() + badge_delay
    FROM subscribers s
    WHERE NOT EXISTS (
        SELECT 1 FROM superseded x WHERE x.webhook_id = s.webhook_id AND x.supersede_key = s.user_id
    );

    PERFORM pg_notify('tidings_deliveries', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER badges_advance_sequence BEFORE UPDATE OF count ON badges
    FOR EACH ROW WHEN (NEW.count IS DISTINCT FROM OLD.count)
    EXECUTE FUNCTION badges_advance_sequence();
CREATE TRIGGER badges_announce AFTER UPDATE ON badges
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION badges_announce();

-- The one way detected content is written, for a batch of watches (say,
-- every watch of one target): per watch the new hash and snapshot, and for
-- a real change the change row, which raises the watch's unread count and
-- the user's badge through the triggers above (one badge change and one
-- badge.updated per user per batch), plus one watch.changed event each,
-- all in the caller's transaction. The first hash of a watch is its
-- baseline and announces nothing; so does an unchanged hash, and so does
-- any hash of a paused watch (kept current so resuming does not report old
-- news). Arrays are parallel, one element per watch; a watch listed twice
-- counts once. Returns the changes written.
--
-- Locks are taken in one global order, watches by id and then badges by
-- user, as the read paths do, so concurrent batches cannot deadlock.
CREATE FUNCTION record_changes(
    watch_ids uuid[],
    new_hashes text[],
    new_snapshots text[],
    snapshots_truncated boolean[],
    change_diffs text[],
    http_statuses integer[],
    content_lengths bigint[]
) RETURNS TABLE (watch_id uuid, change_id uuid)
LANGUAGE plpgsql AS $$
DECLARE
    locked_users uuid[];
    new_changes uuid[];
BEGIN
    SELECT coalesce(array_agg(DISTINCT w.user_id), '{}') INTO locked_users
    FROM (
        SELECT w.user_id FROM watches w
        WHERE w.id = ANY (watch_ids)
        ORDER BY w.id
        FOR UPDATE
    ) w;
    PERFORM 1 FROM badges b WHERE b.user_id = ANY (locked_users) ORDER BY b.user_id FOR UPDATE;

    WITH input AS (
        SELECT DISTINCT ON (i.watch_id) i.*
        FROM unnest(watch_ids, new_hashes, new_snapshots, snapshots_truncated, change_diffs, http_statuses, content_lengths)
             AS i(watch_id, new_hash, snapshot, truncated, diff, http_status, content_length)
        ORDER BY i.watch_id
    ), previous AS (
        SELECT w.id, w.user_id, w.content_hash, w.paused, i.new_hash, i.snapshot, i.truncated, i.diff,
               i.http_status, i.content_length
        FROM watches w JOIN input i ON i.watch_id = w.id
        WHERE w.content_hash IS DISTINCT FROM i.new_hash
    ), updated AS (
        UPDATE watches w
        SET content_hash = p.new_hash,
            snapshot = p.snapshot,
            last_changed_at = CASE WHEN p.content_hash IS NULL OR p.paused THEN w.last_changed_at ELSE now() END,
            updated_at = now()
        FROM previous p
        WHERE w.id = p.id
    ), inserted AS (
        INSERT INTO changes (watch_id, user_id, previous_hash, new_hash, http_status, content_length,
                             snapshot, snapshot_truncated, diff)
        SELECT p.id, p.user_id, p.content_hash, p.new_hash, p.http_status, p.content_length,
               p.snapshot, p.truncated, p.diff
        FROM previous p
        WHERE p.content_hash IS NOT NULL AND NOT p.paused
        RETURNING id
    )
    SELECT coalesce(array_agg(inserted.id), '{}') INTO new_changes FROM inserted;

    IF cardinality(new_changes) = 0 THEN
        RETURN;
    END IF;

    -- After the statement above its triggers have run: the counts below
    -- include this batch.
    WITH announced AS (
        INSERT INTO events (user_id, type, data)
        SELECT c.user_id, 'watch.changed', jsonb_build_object(
            'watch_id', c.watch_id,
            'name', w.name,
            'url', t.url,
            'change_id', c.id,
            'detected_at', iso8601(c.detected_at),
            'previous_hash', c.previous_hash,
            'new_hash', c.new_hash,
            'unread_count', w.unread_count,
            'unread_total', b.count,
            'diff', c.diff
        )
        FROM changes c
        JOIN watches w ON w.id = c.watch_id
        JOIN targets t ON t.id = w.target_id
        JOIN badges b ON b.user_id = c.user_id
        WHERE c.id = ANY (new_changes)
        RETURNING id, user_id
    )
    INSERT INTO deliveries (event_id, webhook_id)
    SELECT a.id, h.id
    FROM announced a JOIN webhooks h ON h.user_id = a.user_id
    WHERE h.disabled_at IS NULL AND 'watch.changed' = ANY (h.event_types)
    UNION ALL
    SELECT a.id, h.id
    FROM announced a CROSS JOIN webhooks h
    WHERE h.global AND h.disabled_at IS NULL AND 'watch.changed' = ANY (h.event_types);
    PERFORM pg_notify('tidings_deliveries', '');

    RETURN QUERY SELECT c.watch_id, c.id FROM changes c WHERE c.id = ANY (new_changes);
END
$$;

-- record_changes for one watch: the change id, or NULL when nothing changed.
CREATE FUNCTION record_change(
    changed_watch uuid,
    new_hash text,
    new_snapshot text,
    new_snapshot_truncated boolean,
    change_diff text,
    change_http_status integer,
    change_content_length bigint
) RETURNS uuid
LANGUAGE sql AS $$
    SELECT change_id FROM record_changes(
        ARRAY[changed_watch], ARRAY[new_hash], ARRAY[new_snapshot], ARRAY[new_snapshot_truncated],
        ARRAY[change_diff], ARRAY[change_http_status], ARRAY[change_content_length]
    )
$$;
