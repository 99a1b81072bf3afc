-- Queues the pushes of a batch of events for their users' devices, each
-- device's subscription passed to device_push_app and
-- device_push_skip_reason.
CREATE OR REPLACE FUNCTION queue_pushes(event_types text[], event_users uuid[], event_data jsonb[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    coalesce_window interval := coalesce(
        nullif(current_setting('tidings.push_coalesce', true), '')::interval, interval '50 milliseconds');
    budget_count integer := coalesce(
        nullif(split_part(current_setting('tidings.push_sync_budget', true), '/', 1), '')::integer, 3);
    budget_window interval := coalesce(
        nullif(split_part(current_setting('tidings.push_sync_budget', true), '/', 2), '')::interval, interval '1 hour');
BEGIN
    IF NOT EXISTS (SELECT 1 FROM push_apps) THEN
        RETURN;
    END IF;

    -- The latest count per user in the batch, to every device.
    WITH counts AS (
        SELECT DISTINCT ON (e.user_id) e.user_id, (e.data->>'count')::bigint AS badge
        FROM unnest(event_types, event_users, event_data) WITH ORDINALITY AS e(type, user_id, data, n)
        WHERE e.type = 'badge.updated' AND e.user_id IS NOT NULL
        ORDER BY e.user_id, e.n DESC
    ), targets AS (
        SELECT d.id AS device_id, d.user_id, c.badge,
               device_push_app(d.platform, d.app_id, d.web_push_auth IS NOT NULL) AS app_id,
               d.platform, d.app_id AS device_app_id, d.web_push_auth IS NOT NULL AS subscribed
        FROM counts c JOIN devices d ON d.user_id = c.user_id
    ), superseded AS (
        UPDATE pushes p SET badge = t.badge, updated_at = now()
        FROM targets t
        WHERE p.device_id = t.device_id AND p.kind = 'badge' AND p.status = 'pending' AND p.lease_owner IS NULL
          AND t.app_id IS NOT NULL
        RETURNING p.device_id
    ), queued AS (
        INSERT INTO pushes (device_id, user_id, push_app_id, kind, badge, next_attempt_at)
        SELECT t.device_id, t.user_id, t.app_id, 'badge', t.badge, now() + coalesce_window
        FROM targets t
        WHERE t.app_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM superseded s WHERE s.device_id = t.device_id)
    )
    INSERT INTO pushes (device_id, user_id, push_app_id, kind, badge, status, reason, completed_at)
    SELECT t.device_id, t.user_id, NULL, 'badge', t.badge, 'skipped',
           device_push_skip_reason(t.platform, t.device_app_id, t.subscribed), now()
    FROM targets t
    WHERE t.app_id IS NULL
    ON CONFLICT (device_id) WHERE status = 'skipped' DO UPDATE
    SET kind = EXCLUDED.kind, badge = EXCLUDED.badge, reason = EXCLUDED.reason,
        created_at = now(), updated_at = now(), completed_at = now();

    -- Changes of watches that push more than the badge.
    WITH changed AS (
        SELECT e.user_id, (e.data->>'watch_id')::uuid AS watch_id, (e.data->>'change_id')::uuid AS change_id,
               (e.data->>'unread_total')::bigint AS badge, w.notify, w.name, c.diff, e.n
        FROM unnest(event_types, event_users, event_data) WITH ORDINALITY AS e(type, user_id, data, n)
        JOIN watches w ON w.id = (e.data->>'watch_id')::uuid
        LEFT JOIN changes c ON c.id = (e.data->>'change_id')::uuid
        WHERE e.type = 'watch.changed' AND w.notify <> 'badge'
    ), targets AS (
        SELECT ch.*, d.id AS device_id, device_push_app(d.platform, d.app_id, d.web_push_auth IS NOT NULL) AS app_id
        FROM changed ch JOIN devices d ON d.user_id = ch.user_id
    ), alerts AS (
        INSERT INTO pushes (device_id, user_id, push_app_id, kind, badge, watch_id, change_id, title, body)
        SELECT t.device_id, t.user_id, t.app_id, 'alert', t.badge, t.watch_id, t.change_id,
               left(t.name, 178), change_summary(t.diff)
        FROM targets t
        WHERE t.notify = 'alert' AND t.app_id IS NOT NULL
        ORDER BY t.n
    ), latest_sync AS (
        SELECT DISTINCT ON (t.device_id) t.*
        FROM targets t
        WHERE t.notify = 'sync' AND t.app_id IS NOT NULL
        ORDER BY t.device_id, t.n DESC
    ), superseded AS (
        UPDATE pushes p SET watch_id = s.watch_id, change_id = s.change_id, updated_at = now()
        FROM latest_sync s
        WHERE p.device_id = s.device_id AND p.kind = 'sync' AND p.status = 'pending' AND p.lease_owner IS NULL
        RETURNING p.device_id
    )
    INSERT INTO pushes (device_id, user_id, push_app_id, kind, watch_id, change_id, next_attempt_at)
    SELECT s.device_id, s.user_id, s.app_id, 'sync', s.watch_id, s.change_id,
           -- Past the budget: when the oldest of the last budget_count
           -- sync pushes (sent, or in flight now) leaves the window.
           greatest(now(), (
               SELECT CASE WHEN count(*) >= budget_count THEN min(r.at) + budget_window END
               FROM (
                   SELECT coalesce(p.completed_at, now()) AS at FROM pushes p
                   WHERE p.device_id = s.device_id AND p.kind = 'sync'
                     AND ((p.status = 'sent' AND p.completed_at > now() - budget_window)
                          OR (p.status = 'pending' AND p.lease_owner IS NOT NULL))
                   ORDER BY at DESC LIMIT budget_count
               ) r
           ))
    FROM latest_sync s
    WHERE NOT EXISTS (SELECT 1 FROM superseded x WHERE x.device_id = s.device_id);

    -- Delivered at commit: wakes push dispatchers early.
    PERFORM pg_notify('tidings_pushes', '');
END
$$;
