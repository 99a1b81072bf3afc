-- One outbox: every event, from every path, is queued by queue_events,
-- which stores the events and their deliveries (and, later, their pushes).
-- Who receives an event, how an absolute value (badge.updated) supersedes a
-- pending delivery and waits the coalescing window, and the wake-up of the
-- dispatchers are written here once; enqueue_event (0006) and the private
-- copies in badges_announce and record_changes go. See
-- docs/decisions/0003-one-outbox.md.

-- One event to queue. user_id is NULL only for events about global
-- webhooks; only_webhook sends it to that webhook alone, whatever its types
-- (webhook.test); except_webhook leaves one subscriber out (webhook.disabled
-- goes to the owner's other webhooks).
CREATE TYPE outbox_event AS (
    user_id         uuid,
    type            text,
    data            jsonb,
    only_webhook    uuid,
    except_webhook  uuid
);

-- Stores the events and a delivery per subscriber: each enabled webhook of
-- the event's user and each enabled global webhook that subscribes to the
-- type. Returns the event ids in the order of the batch. Called only inside
-- the transaction that caused the events; NOTIFYs dispatchers, which is
-- delivered at commit.
--
-- badge.updated is absolute: a pending delivery of an older badge of the
-- same user to the same webhook that no dispatcher holds takes the new
-- event instead of a second delivery being queued (within a batch, the
-- last event per user wins), and a new badge delivery waits the coalescing
-- window (session setting tidings.badge_coalesce, default 2 s), so a burst
-- of changes goes out as one delivery with the final count.
CREATE FUNCTION queue_events(batch outbox_event[]) RETURNS SETOF uuid
LANGUAGE plpgsql AS $$
DECLARE
    badge_delay interval := coalesce(
        nullif(current_setting('tidings.badge_coalesce', true), '')::interval,
        interval '2 seconds'
    );
    event_ids uuid[];
BEGIN
    IF coalesce(cardinality(batch), 0) = 0 THEN
        RETURN;
    END IF;

    WITH input AS MATERIALIZED (
        SELECT gen_random_uuid() AS id, e.user_id, e.type, e.data, e.only_webhook, e.except_webhook, e.n,
               -- The absolute events and what makes two of them the same value.
               e.type = 'badge.updated' AS absolute
        FROM unnest(batch) WITH ORDINALITY AS e(user_id, type, data, only_webhook, except_webhook, n)
    ), stored AS (
        INSERT INTO events (id, user_id, type, data)
        SELECT i.id, i.user_id, i.type, i.data FROM input i ORDER BY i.n
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

    -- Delivered at commit, and only then: wakes dispatchers early.
    PERFORM pg_notify('tidings_deliveries', '');
    RETURN QUERY SELECT unnest(event_ids);
END
$$;

DROP FUNCTION enqueue_event(uuid, text, jsonb, uuid, uuid);

-- Every change of a badge's count is announced as badge.updated, once per
-- statement for every badge it changed, except while the user itself is
-- being deleted (its watches cascade away with it; nobody is left to tell).
CREATE OR REPLACE FUNCTION badges_announce() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM queue_events((
        SELECT array_agg(ROW(
            n.user_id, 'badge.updated', badge_event_data(n.user_id, n.count, n.sequence, n.updated_at), NULL, NULL
        )::outbox_event)
        FROM new_rows n JOIN old_rows o ON o.user_id = n.user_id
        WHERE n.count <> o.count AND EXISTS (SELECT 1 FROM users u WHERE u.id = n.user_id)
    ));
    RETURN NULL;
END
$$;

-- The one way detected content is written, and the one place that decides
-- what it is, for a batch of watches: per watch the new hash and snapshot,
-- and for a real change the change row, which raises the watch's unread
-- count and the user's badge through the triggers of 0006 (one badge change
-- and one badge.updated per user per batch), plus one watch.changed event
-- each, all in the caller's transaction. The first hash of a watch is its
-- baseline and announces nothing; so does an unchanged hash, and so does
-- any hash of a paused watch (kept current so resuming does not report old
-- news; its result is still "changed"). Arrays are parallel, one element
-- per watch; a watch listed twice counts once. Returns, per watch found,
-- its result (baseline, unchanged or changed) and the change written, if
-- any.
--
-- Locks are taken in one global order, watches by id and then badges by
-- user, as the read paths do, so concurrent batches cannot deadlock.
DROP FUNCTION record_change(uuid, text, text, boolean, text, integer, bigint);
DROP FUNCTION record_changes(uuid[], text[], text[], boolean[], text[], integer[], bigint[]);
CREATE FUNCTION record_changes(
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
        SELECT w.id, w.user_id, w.content_hash, w.paused, i.new_hash, i.snapshot, i.truncated, i.diff,
               i.http_status, i.content_length,
               CASE WHEN w.content_hash IS NOT DISTINCT FROM i.new_hash THEN 'unchanged'
                    WHEN w.content_hash IS NULL THEN 'baseline'
                    ELSE 'changed' END AS result
        FROM watches w JOIN input i ON i.watch_id = w.id
    ), updated AS (
        UPDATE watches w
        SET content_hash = p.new_hash,
            snapshot = p.snapshot,
            last_changed_at = CASE WHEN p.result = 'changed' AND NOT p.paused THEN now() ELSE w.last_changed_at END,
            updated_at = now()
        FROM compared p
        WHERE w.id = p.id AND p.result <> 'unchanged'
    ), inserted AS (
        INSERT INTO changes (watch_id, user_id, previous_hash, new_hash, http_status, content_length,
                             snapshot, snapshot_truncated, diff)
        SELECT p.id, p.user_id, p.content_hash, p.new_hash, p.http_status, p.content_length,
               p.snapshot, p.truncated, p.diff
        FROM compared p
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
                'diff', c.diff
            ), NULL, NULL)::outbox_event ORDER BY c.watch_id)
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
