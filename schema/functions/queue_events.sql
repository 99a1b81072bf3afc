-- The one outbox (decision 0015): queues events for their users. Every event of a user takes the next
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
