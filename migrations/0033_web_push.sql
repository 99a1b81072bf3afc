-- Web Push (issue 29, part 3; decision 0042): browsers are pushed through
-- their push service (RFC 8030), with messages encrypted for the browser
-- (RFC 8291) and signed with the deployment's VAPID key (RFC 8292), on the
-- same outbox, leases, retries and push log as APNs and FCM.

-- The deployment's VAPID key is a push app of its own, platform webpush,
-- app_id vapid, which Tidings writes at start from TIDINGS_VAPID_PRIVATE_KEY
-- (or the key it generated into the data folder) and deletes when web push
-- is off. Its private key is sealed like every push app key; the admin API
-- neither shows nor changes it. At most one exists.
ALTER TABLE push_apps DROP CONSTRAINT push_apps_platform_check;
ALTER TABLE push_apps ADD CONSTRAINT push_apps_platform_check CHECK (platform IN ('apns', 'fcm', 'webpush'));
-- The `sub` claim: a mailto: or https: contact for the push services.
ALTER TABLE push_apps ADD COLUMN vapid_subject text CHECK (char_length(vapid_subject) BETWEEN 1 AND 1024);
-- base64url of the uncompressed public point: what browsers subscribe with
-- (applicationServerKey), so a changed key is seen without opening the
-- private one.
ALTER TABLE push_apps ADD COLUMN vapid_public_key text CHECK (vapid_public_key ~ '^[A-Za-z0-9_-]{87}$');
ALTER TABLE push_apps ADD CONSTRAINT push_apps_webpush_check CHECK (
    (platform = 'webpush') = (vapid_subject IS NOT NULL AND vapid_public_key IS NOT NULL)
    AND (platform <> 'webpush' OR app_id = 'vapid')
);

-- A web device is a browser's PushSubscription: its endpoint is the
-- device's push_token (so registering the same endpoint again updates the
-- same device), p256dh the browser's P-256 key (base64url of the 65-byte
-- point) and auth its 16-byte secret, sealed under TIDINGS_SECRET_KEY
-- (context devices.web_push_auth). Both are write-only. Web devices
-- registered before this migration have neither: they are logged as
-- skipped until the browser registers its subscription.
ALTER TABLE devices ADD COLUMN web_push_p256dh text CHECK (web_push_p256dh ~ '^[A-Za-z0-9_-]{87}$');
ALTER TABLE devices ADD COLUMN web_push_auth text CHECK (web_push_auth LIKE 'enc:v1:%');
ALTER TABLE devices ADD CONSTRAINT devices_web_push_keys_check CHECK (
    (web_push_p256dh IS NULL) = (web_push_auth IS NULL) AND (platform = 'web' OR web_push_p256dh IS NULL)
);

-- The push app a device is pushed through, or NULL: ios -> apns, android ->
-- fcm as before (the device's app_id, or the only app of that service);
-- web -> the deployment's VAPID app, for a device with a subscription.
CREATE FUNCTION device_push_app(device_platform text, device_app_id text, subscribed boolean) RETURNS uuid
LANGUAGE sql STABLE AS $$
    SELECT a.id FROM push_apps a
    WHERE device_platform = 'web' AND subscribed AND a.platform = 'webpush'
    UNION ALL
    SELECT a.id FROM push_apps a
    WHERE device_platform <> 'web'
      AND a.platform = CASE device_platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' END
      AND (a.app_id = device_app_id
           OR (device_app_id IS NULL
               AND (SELECT count(*) FROM push_apps b WHERE b.platform = a.platform) = 1))
$$;

-- Why a device without a push app gets none, for its push log.
CREATE FUNCTION device_push_skip_reason(device_platform text, device_app_id text, subscribed boolean) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE
        WHEN device_platform = 'web' AND NOT subscribed THEN
            'the web device has no push subscription: register it again with push_subscription'
        WHEN device_platform = 'web' THEN
            'web push is off: TIDINGS_VAPID_PRIVATE_KEY is not set'
        WHEN device_app_id IS NOT NULL THEN
            format('no %s push app has app_id %s', CASE device_platform WHEN 'ios' THEN 'APNs' ELSE 'FCM' END, device_app_id)
        ELSE format('the device has no app_id and there is not exactly one %s push app',
                    CASE device_platform WHEN 'ios' THEN 'APNs' ELSE 'FCM' END)
    END
$$;

-- The two-argument forms (migration 0020) for any caller that has only a
-- device's platform and app id: a web device counts as subscribed.
CREATE OR REPLACE FUNCTION device_push_app(device_platform text, device_app_id text) RETURNS uuid
LANGUAGE sql STABLE AS $$
    SELECT device_push_app(device_platform, device_app_id, true)
$$;

CREATE OR REPLACE FUNCTION device_push_skip_reason(device_platform text, device_app_id text) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT device_push_skip_reason(device_platform, device_app_id, true)
$$;

-- queue_pushes (migration 0020), with each device's subscription passed to
-- device_push_app and device_push_skip_reason. Nothing else changes.
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

-- register_distinct_devices (migration 0013) with a web device's keys:
-- DeviceStore adds web_push_p256dh and web_push_auth (already sealed) to
-- each element; a registration sets both, or clears both for a device
-- that is no longer a subscribed web device. Signature and result columns
-- are unchanged, so register_devices (0013) calls it as before.
CREATE OR REPLACE FUNCTION register_distinct_devices(registrations jsonb)
RETURNS TABLE (
    id uuid, user_id uuid, platform text, push_token text, app_id text, name text, locale text,
    last_seen_at timestamptz, created_at timestamptz, updated_at timestamptz, created boolean
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    RETURN QUERY
    WITH input AS (
        SELECT r.ordinality, (r.value->>'user_id')::uuid AS user_id, r.value->>'platform' AS platform,
               r.value->>'push_token' AS push_token, r.value->>'app_id' AS app_id,
               r.value->>'name' AS name, r.value->>'locale' AS locale,
               r.value->>'web_push_p256dh' AS web_push_p256dh, r.value->>'web_push_auth' AS web_push_auth
        FROM jsonb_array_elements(registrations) WITH ORDINALITY AS r (value, ordinality)
    ), upserted AS (
        INSERT INTO devices AS d (user_id, platform, push_token, app_id, name, locale, web_push_p256dh, web_push_auth)
        SELECT i.user_id, i.platform, i.push_token, i.app_id, i.name, i.locale, i.web_push_p256dh, i.web_push_auth
        FROM input i
        ORDER BY i.user_id, md5(i.push_token)
        ON CONFLICT (user_id, md5(push_token)) DO UPDATE SET
            platform = EXCLUDED.platform,
            push_token = EXCLUDED.push_token,
            app_id = coalesce(EXCLUDED.app_id, d.app_id),
            name = coalesce(EXCLUDED.name, d.name),
            locale = coalesce(EXCLUDED.locale, d.locale),
            -- A registration says what the device is now: a web device's
            -- keys are its subscription's, and any other has none.
            web_push_p256dh = EXCLUDED.web_push_p256dh,
            web_push_auth = EXCLUDED.web_push_auth,
            last_seen_at = now(),
            updated_at = now()
        RETURNING d.id, d.user_id, d.platform, d.push_token, d.app_id, d.name, d.locale,
                  d.last_seen_at, d.created_at, d.updated_at, (d.xmax = 0) AS created
    )
    -- Every row now holds its element's token (inserted or set), and the
    -- elements' (user_id, token) pairs are distinct.
    SELECT u.id, u.user_id, u.platform, u.push_token, u.app_id, u.name, u.locale,
           u.last_seen_at, u.created_at, u.updated_at, u.created
    FROM upserted u
    JOIN input i ON i.user_id = u.user_id AND i.push_token = u.push_token
    ORDER BY i.ordinality;
END
$$;
