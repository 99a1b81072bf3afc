-- One order per user (issue 29, decision 0040): every change and every
-- event of a user takes the next position of one counter kept on the
-- user's badge row, so the sync feed (GET /v1/changes), the event stream
-- (GET /v1/events) and the sync push all mean the same thing by "after X".
--
-- Positions are drawn under the badge row lock, which the drawing
-- transaction holds until it commits: a later position can only be drawn
-- once every earlier one has committed or rolled back. A reader that sees
-- position p therefore already sees every committed position below p, and
-- a cursor never skips a row that commits late (a global identity cannot
-- promise that: ids are drawn in one order and committed in another).
-- Rolled back positions leave gaps, which readers simply step over.
--
-- Retention trims the order from the old end only: trimmed_through is the
-- highest position whose row retention may have removed, and a cursor
-- below it answers 410 Gone (resync), never a silent gap.
ALTER TABLE badges
    ADD COLUMN last_position bigint NOT NULL DEFAULT 0 CHECK (last_position >= 0),
    ADD COLUMN trimmed_through bigint NOT NULL DEFAULT 0 CHECK (trimmed_through >= 0);

ALTER TABLE changes ADD COLUMN user_position bigint;
ALTER TABLE events ADD COLUMN user_position bigint;

-- Changes written before this migration take positions in their old
-- (global) order. Events written before it get none: the stream cannot
-- replay them, so the order counts as trimmed up to here.
UPDATE changes c SET user_position = n.p
FROM (SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY position) AS p FROM changes) n
WHERE c.id = n.id;
UPDATE badges b SET last_position = n.last, trimmed_through = n.last
FROM (SELECT user_id, max(user_position) AS last FROM changes GROUP BY user_id) n
WHERE b.user_id = n.user_id;

ALTER TABLE changes ALTER COLUMN user_position SET NOT NULL;
-- The feed reads a user's changes in order from a position.
CREATE UNIQUE INDEX changes_user_position_key ON changes (user_id, user_position);
-- The stream reads a user's events in order from a position.
CREATE UNIQUE INDEX events_user_position_key ON events (user_id, user_position) WHERE user_position IS NOT NULL;

-- Draws `n` positions of each user's order; returns each user's first.
-- The caller holds, or here takes, the badge rows in user order (the lock
-- order every writer keeps: watches by id, then badges by user).
CREATE FUNCTION draw_positions(users uuid[], counts bigint[])
RETURNS TABLE (user_id uuid, first_position bigint)
LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(cardinality(users), 0) = 0 THEN
        RETURN;
    END IF;
    PERFORM 1 FROM badges b WHERE b.user_id = ANY (users) ORDER BY b.user_id FOR UPDATE;
    RETURN QUERY
    WITH advanced AS (
        UPDATE badges b SET last_position = b.last_position + x.n
        FROM unnest(users, counts) AS x(user_id, n)
        WHERE b.user_id = x.user_id AND x.n > 0
        RETURNING b.user_id, b.last_position - x.n + 1 AS first_position
    )
    SELECT a.user_id, a.first_position FROM advanced a;
END
$$;

-- Raises each user's trimmed_through to the highest of its positions
-- that retention deleted (parallel arrays, a user may repeat), locking the
-- badges in user order. Returns nothing useful; called as an expression.
CREATE FUNCTION trim_user_orders(users uuid[], positions bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(cardinality(users), 0) = 0 THEN
        RETURN;
    END IF;
    PERFORM 1 FROM badges b WHERE b.user_id = ANY (users) ORDER BY b.user_id FOR UPDATE;
    UPDATE badges b SET trimmed_through = greatest(b.trimmed_through, t.through)
    FROM (SELECT x.user_id, max(x.position) AS through FROM unnest(users, positions) AS x(user_id, position) GROUP BY x.user_id) t
    WHERE b.user_id = t.user_id AND t.through > b.trimmed_through;
END
$$;

-- queue_events (0020) with positions: every event of a user takes the next
-- positions of the user's order, in batch order, and each user with new
-- events is named on tidings_events (at commit) for the streams.
CREATE OR REPLACE FUNCTION queue_events(batch outbox_event[]) RETURNS SETOF uuid
LANGUAGE plpgsql AS $$
DECLARE
    badge_delay interval := coalesce(
        nullif(current_setting('tidings.badge_coalesce', true), '')::interval,
        interval '2 seconds'
    );
    event_ids uuid[];
    event_users uuid[];
    event_counts bigint[];
    announced uuid;
BEGIN
    IF coalesce(cardinality(batch), 0) = 0 THEN
        RETURN;
    END IF;

    SELECT array_agg(c.user_id ORDER BY c.user_id), array_agg(c.n ORDER BY c.user_id)
    INTO event_users, event_counts
    FROM (SELECT e.user_id, count(*) AS n FROM unnest(batch) e WHERE e.user_id IS NOT NULL GROUP BY e.user_id) c;

    WITH drawn AS MATERIALIZED (
        SELECT * FROM draw_positions(coalesce(event_users, '{}'), coalesce(event_counts, '{}'))
    ), input AS MATERIALIZED (
        SELECT gen_random_uuid() AS id, e.user_id, e.type, e.data, e.only_webhook, e.except_webhook, e.n,
               -- The absolute events and what makes two of them the same value.
               e.type = 'badge.updated' AS absolute,
               d.first_position - 1 + row_number() OVER (PARTITION BY e.user_id ORDER BY e.n) AS user_position
        FROM unnest(batch) WITH ORDINALITY AS e(user_id, type, data, only_webhook, except_webhook, n)
        LEFT JOIN drawn d ON d.user_id = e.user_id
    ), stored AS (
        INSERT INTO events (id, user_id, type, data, user_position)
        SELECT i.id, i.user_id, i.type, i.data, i.user_position FROM input i ORDER BY i.n
    ), subscribers AS (
        -- Three index lookups rather than one OR over every webhook.
        SELECT i.id AS event_id, i.n, i.user_id, i.absolute, h.id AS webhook_id
        FROM input i JOIN webhooks h ON h.id = i.only_webhook
        WHERE h.disabled_at IS NULL
        UNION ALL
        SELECT i.id, i.n, i.user_id, i.absolute, h.id
        FROM input i JOIN webhooks h ON h.user_id = i.user_id
        WHERE i.only_webhook IS NULL AND h.disabled_at IS NULL AND i.type = ANY (h.event_types)
          AND h.id IS DISTINCT FROM i.except_webhook
        UNION ALL
        SELECT i.id, i.n, i.user_id, i.absolute, h.id
        FROM input i CROSS JOIN webhooks h
        WHERE i.only_webhook IS NULL AND h.global AND h.disabled_at IS NULL AND i.type = ANY (h.event_types)
          AND h.id IS DISTINCT FROM i.except_webhook
    ), latest AS (
        SELECT DISTINCT ON (s.webhook_id, s.user_id) s.event_id, s.webhook_id, s.user_id
        FROM subscribers s
        WHERE s.absolute
        ORDER BY s.webhook_id, s.user_id, s.n DESC
    ), superseded AS (
        UPDATE deliveries d
        SET event_id = l.event_id, updated_at = now()
        FROM latest l
        WHERE d.webhook_id = l.webhook_id
          AND d.supersede_key = l.user_id
          AND d.status = 'pending'
          AND d.lease_owner IS NULL
        RETURNING d.webhook_id, d.supersede_key
    ), queued AS (
        INSERT INTO deliveries (event_id, webhook_id, supersede_key, next_attempt_at)
        SELECT s.event_id, s.webhook_id, NULL, now()
        FROM subscribers s
        WHERE NOT s.absolute
        UNION ALL
        SELECT l.event_id, l.webhook_id, l.user_id, now() + badge_delay
        FROM latest l
        WHERE NOT EXISTS (
            SELECT 1 FROM superseded x WHERE x.webhook_id = l.webhook_id AND x.supersede_key = l.user_id
        )
    )
    SELECT array_agg(i.id ORDER BY i.n) INTO event_ids FROM input i;

    PERFORM queue_pushes(
        ARRAY(SELECT e.type FROM unnest(batch) WITH ORDINALITY AS e(user_id, type, data, o, x, n) ORDER BY e.n),
        ARRAY(SELECT e.user_id FROM unnest(batch) WITH ORDINALITY AS e(user_id, type, data, o, x, n) ORDER BY e.n),
        ARRAY(SELECT e.data FROM unnest(batch) WITH ORDINALITY AS e(user_id, type, data, o, x, n) ORDER BY e.n)
    );

    -- Delivered at commit, and only then: wakes dispatchers early, and the
    -- streams of each user named (identical notifications of one
    -- transaction are delivered once).
    PERFORM pg_notify('tidings_deliveries', '');
    FOREACH announced IN ARRAY coalesce(event_users, '{}') LOOP
        PERFORM pg_notify('tidings_events', announced::text);
    END LOOP;
    RETURN QUERY SELECT unnest(event_ids);
END
$$;

-- record_changes (0023) with positions: each change takes the next position
-- of its user's order (drawn before the change is inserted, so the
-- badge.updated and watch.changed events its triggers and this function
-- queue come after it), and watch.changed carries it as `cursor`, the
-- feed position a client can resume from.
CREATE OR REPLACE FUNCTION record_changes(
    watch_ids uuid[],
    new_hashes text[],
    new_snapshots text[],
    snapshots_truncated boolean[],
    change_diffs text[],
    http_statuses integer[],
    content_lengths bigint[]
) RETURNS TABLE (watch_id uuid, result text, change_id uuid)
LANGUAGE plpgsql AS $$
DECLARE
    locked_users uuid[];
    found_watches uuid[];
    found_results text[];
    found_changes uuid[];
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
    ), compared AS MATERIALIZED (
        SELECT w.id, w.user_id, w.content_hash, w.paused, w.quiet_rebaseline, i.new_hash, i.snapshot, i.truncated,
               i.diff, i.http_status, i.content_length,
               CASE WHEN w.content_hash IS NOT DISTINCT FROM i.new_hash THEN 'unchanged'
                    WHEN w.content_hash IS NULL OR w.quiet_rebaseline THEN 'baseline'
                    ELSE 'changed' END AS result
        FROM watches w JOIN input i ON i.watch_id = w.id
    ), drawn AS MATERIALIZED (
        SELECT d.* FROM draw_positions(
            ARRAY(SELECT p.user_id FROM compared p WHERE p.result = 'changed' AND NOT p.paused GROUP BY p.user_id ORDER BY p.user_id),
            ARRAY(SELECT count(*) FROM compared p WHERE p.result = 'changed' AND NOT p.paused GROUP BY p.user_id ORDER BY p.user_id)
        ) d
    ), updated AS (
        UPDATE watches w
        SET content_hash = p.new_hash,
            snapshot = p.snapshot,
            quiet_rebaseline = false,
            last_changed_at = CASE WHEN p.result = 'changed' AND NOT p.paused THEN now() ELSE w.last_changed_at END,
            updated_at = now()
        FROM compared p
        WHERE w.id = p.id AND (p.result <> 'unchanged' OR p.quiet_rebaseline)
    ), inserted AS (
        INSERT INTO changes (watch_id, user_id, previous_hash, new_hash, http_status, content_length,
                             snapshot, snapshot_truncated, diff, user_position)
        SELECT p.id, p.user_id, p.content_hash, p.new_hash, p.http_status, p.content_length,
               p.snapshot, p.truncated, p.diff,
               d.first_position - 1 + row_number() OVER (PARTITION BY p.user_id ORDER BY p.id)
        FROM compared p JOIN drawn d ON d.user_id = p.user_id
        WHERE p.result = 'changed' AND NOT p.paused
        RETURNING changes.id, changes.watch_id
    )
    SELECT array_agg(p.id ORDER BY p.id), array_agg(p.result ORDER BY p.id), array_agg(x.id ORDER BY p.id)
    INTO found_watches, found_results, found_changes
    FROM compared p LEFT JOIN inserted x ON x.watch_id = p.id;

    new_changes := array_remove(found_changes, NULL);
    IF cardinality(new_changes) > 0 THEN
        -- After the statement above its triggers have run: the counts below
        -- include this batch.
        PERFORM 1 FROM queue_events((
            SELECT array_agg(ROW(c.user_id, 'watch.changed', jsonb_build_object(
                'watch_id', c.watch_id,
                'name', w.name,
                'url', t.url,
                'change_id', c.id,
                'detected_at', iso8601(c.detected_at),
                'previous_hash', c.previous_hash,
                'new_hash', c.new_hash,
                'unread_count', w.unread_count,
                'unread_total', b.count,
                'diff', c.diff,
                'cursor', c.user_position::text
            ), NULL, NULL)::outbox_event ORDER BY c.user_id, c.user_position)
            FROM changes c
            JOIN watches w ON w.id = c.watch_id
            JOIN targets t ON t.id = w.target_id
            JOIN badges b ON b.user_id = c.user_id
            WHERE c.id = ANY (new_changes)
        ));
    END IF;

    RETURN QUERY SELECT * FROM unnest(found_watches, found_results, found_changes);
END
$$;
