-- Direct push (issue 15): Tidings pushes badge, sync and alert messages to
-- devices itself, over APNs and FCM, through the same outbox as webhooks.
-- See docs/decisions/0024-direct-push.md.

-- The credentials of one app on one push service, set by the admin.
-- APNs: token-based (team id, key id, the .p8 key); FCM HTTP v1: a Google
-- service account (project id, client email, token URI, its key). The
-- private key is sealed under TIDINGS_SECRET_KEY like every secret
-- (context push_apps.private_key) and never returned.
CREATE TABLE push_apps (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    platform      text NOT NULL CHECK (platform IN ('apns', 'fcm')),
    -- The bundle id (APNs: also the apns-topic) or Android package name.
    app_id        text NOT NULL CHECK (char_length(app_id) BETWEEN 1 AND 255),
    environment   text CHECK (environment IN ('production', 'sandbox')),
    team_id       text CHECK (char_length(team_id) BETWEEN 1 AND 64),
    key_id        text CHECK (char_length(key_id) BETWEEN 1 AND 64),
    project_id    text CHECK (char_length(project_id) BETWEEN 1 AND 255),
    client_email  text CHECK (char_length(client_email) BETWEEN 1 AND 320),
    token_uri     text CHECK (char_length(token_uri) BETWEEN 1 AND 2048),
    private_key   text NOT NULL CHECK (private_key LIKE 'enc:v1:%'),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT push_apps_platform_app_key UNIQUE (platform, app_id),
    CHECK ((platform = 'apns') = (environment IS NOT NULL AND team_id IS NOT NULL AND key_id IS NOT NULL)),
    CHECK ((platform = 'fcm') = (project_id IS NOT NULL AND client_email IS NOT NULL AND token_uri IS NOT NULL))
);

-- What a change of the watch pushes besides the badge: nothing more
-- (badge), a background sync (sync), or a visible notification (alert).
ALTER TABLE watches ADD COLUMN notify text NOT NULL DEFAULT 'badge' CHECK (notify IN ('badge', 'sync', 'alert'));

-- device.invalidated: a push service said the device's token is dead and
-- the device was removed (or a gateway said so through
-- POST /v1/devices/invalidations).
ALTER TABLE events DROP CONSTRAINT events_type_check;
ALTER TABLE events ADD CONSTRAINT events_type_check CHECK (type IN (
    'watch.changed', 'badge.updated', 'watch.failing', 'watch.recovered',
    'webhook.disabled', 'webhook.test', 'device.invalidated'
));
ALTER TABLE webhooks DROP CONSTRAINT webhooks_event_types_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_event_types_check CHECK (
    cardinality(event_types) > 0
    AND event_types <@ ARRAY['watch.changed', 'badge.updated', 'watch.failing', 'watch.recovered',
                             'webhook.disabled', 'device.invalidated']
);

-- One push to one device: the outbox rows of direct push, and the device's
-- push log (GET /v1/devices/{id}/pushes).
--
-- A badge push carries the user's absolute count. While it waits, a newer
-- count replaces its value (supersede) instead of queueing another, and a
-- device has at most one badge push in flight, so the last count sent is
-- the last count. A sync push is the same per device: past the sync budget
-- the one pending sync push waits and carries the latest change. Alerts are
-- one per change.
--
-- status: pending (queued or in flight), sent, failed (permanently, or out
-- of attempts), skipped (the device has no push app: reason says why; one
-- such row per device is kept), superseded (a retry found a newer push of
-- the same kind waiting).
CREATE TABLE pushes (
    id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    device_id        uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    user_id          uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    push_app_id      uuid REFERENCES push_apps (id) ON DELETE CASCADE,
    kind             text NOT NULL CHECK (kind IN ('badge', 'sync', 'alert')),
    badge            bigint CHECK (badge >= 0),
    -- No foreign keys: the log outlives the watch and the change.
    watch_id         uuid,
    change_id        uuid,
    title            text,
    body             text,
    status           text NOT NULL DEFAULT 'pending'
                     CHECK (status IN ('pending', 'sent', 'failed', 'skipped', 'superseded')),
    reason           text,
    -- The APNs apns-id or the FCM message name of a sent push.
    provider_id      text,
    attempt_count    integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    lease_owner      text,
    lease_until      timestamptz,
    last_attempt_at  timestamptz,
    completed_at     timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((lease_owner IS NULL) = (lease_until IS NULL)),
    CHECK ((status = 'pending') = (completed_at IS NULL)),
    CHECK ((status = 'skipped') = (push_app_id IS NULL))
);

-- The push dispatcher claims due pending pushes in next_attempt_at order.
CREATE INDEX pushes_due_idx ON pushes (next_attempt_at) WHERE status = 'pending';
-- Supersede and the one-in-flight rule look up a device's pending pushes.
CREATE INDEX pushes_device_pending_idx ON pushes (device_id, kind) WHERE status = 'pending';
-- The sync budget counts a device's recent sync pushes.
CREATE INDEX pushes_device_sync_sent_idx ON pushes (device_id, completed_at) WHERE kind = 'sync' AND status = 'sent';
-- The push log, in creation order.
CREATE INDEX pushes_device_created_idx ON pushes (device_id, created_at, id);
-- One skipped row per device, refreshed rather than repeated.
CREATE UNIQUE INDEX pushes_device_skipped_key ON pushes (device_id) WHERE status = 'skipped';
-- Dead owners' leases are cleared by owner.
CREATE INDEX pushes_leased_idx ON pushes (lease_owner) WHERE lease_owner IS NOT NULL;

ALTER TABLE lease_owners DROP CONSTRAINT lease_owners_holds_check;
ALTER TABLE lease_owners ADD CONSTRAINT lease_owners_holds_check CHECK (holds IN ('deliveries', 'targets', 'pushes'));

-- The push app a device is pushed through, or NULL: the app of the
-- device's service (ios: apns, android: fcm; web: none yet) with the
-- device's app_id, or the only app of that service when the device has no
-- app_id.
CREATE FUNCTION device_push_app(device_platform text, device_app_id text) RETURNS uuid
LANGUAGE sql STABLE AS $$
    SELECT a.id FROM push_apps a
    WHERE a.platform = CASE device_platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' END
      AND (a.app_id = device_app_id
           OR (device_app_id IS NULL
               AND (SELECT count(*) FROM push_apps b WHERE b.platform = a.platform) = 1))
$$;

-- Why a device without a push app gets none, for its push log.
CREATE FUNCTION device_push_skip_reason(device_platform text, device_app_id text) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE
        WHEN device_platform = 'web' THEN 'web devices are not pushed yet'
        WHEN device_app_id IS NOT NULL THEN
            format('no %s push app has app_id %s', CASE device_platform WHEN 'ios' THEN 'APNs' ELSE 'FCM' END, device_app_id)
        ELSE format('the device has no app_id and there is not exactly one %s push app',
                    CASE device_platform WHEN 'ios' THEN 'APNs' ELSE 'FCM' END)
    END
$$;

-- The first added line of a unified diff, for an alert's body.
CREATE FUNCTION change_summary(diff text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(
        nullif(left(btrim(substring(coalesce(diff, '') FROM '(?:^|\n)\+(?!\+\+ )([^\n]*)')), 178), ''),
        'The content changed.'
    )
$$;

-- Queues the pushes a batch of events causes, inside the transaction that
-- caused them. Off while no push app exists: a deployment that pushes
-- through webhooks only writes nothing here.
--
-- badge.updated: each of the user's devices gets the new count; a pending
-- badge push no dispatcher holds takes the new value instead (the badge
-- row lock serializes a user's counts, so this never races itself), and a
-- new one waits the push coalescing window (tidings.push_coalesce, 50 ms by
-- default) so a burst leaves with its final count.
-- watch.changed: devices of a watch with notify sync get a background push
-- (one pending per device, past the budget waiting until it frees:
-- tidings.push_sync_budget, default 3 per hour), with notify alert a
-- visible one carrying the badge.
CREATE FUNCTION queue_pushes(event_types text[], event_users uuid[], event_data jsonb[]) RETURNS void
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
        SELECT d.id AS device_id, d.user_id, c.badge, device_push_app(d.platform, d.app_id) AS app_id,
               d.platform, d.app_id AS device_app_id
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
           device_push_skip_reason(t.platform, t.device_app_id), now()
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
        SELECT ch.*, d.id AS device_id, device_push_app(d.platform, d.app_id) AS app_id
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

-- queue_events (0015) with the pushes of the batch queued too: one outbox.
CREATE OR REPLACE FUNCTION queue_events(batch outbox_event[]) RETURNS SETOF uuid
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

    PERFORM queue_pushes(
        ARRAY(SELECT e.type FROM unnest(batch) WITH ORDINALITY AS e(user_id, type, data, o, x, n) ORDER BY e.n),
        ARRAY(SELECT e.user_id FROM unnest(batch) WITH ORDINALITY AS e(user_id, type, data, o, x, n) ORDER BY e.n),
        ARRAY(SELECT e.data FROM unnest(batch) WITH ORDINALITY AS e(user_id, type, data, o, x, n) ORDER BY e.n)
    );

    -- Delivered at commit, and only then: wakes dispatchers early.
    PERFORM pg_notify('tidings_deliveries', '');
    RETURN QUERY SELECT unnest(event_ids);
END
$$;

-- Removes devices whose push token is dead (a push service said so, or a
-- gateway through POST /v1/devices/invalidations) and announces each as
-- device.invalidated to the owner's webhooks, in the caller's transaction.
-- Their pushes go with them. Returns the removed devices in creation order.
CREATE FUNCTION invalidate_devices(device_ids uuid[], why text) RETURNS SETOF devices
LANGUAGE plpgsql AS $$
DECLARE
    removed devices[];
BEGIN
    WITH r AS (
        DELETE FROM devices d WHERE d.id = ANY (device_ids) RETURNING d.*
    )
    SELECT coalesce(array_agg(r ORDER BY r.created_at, r.id), '{}') INTO removed FROM r;

    PERFORM 1 FROM queue_events(ARRAY(
        SELECT ROW(x.user_id, 'device.invalidated', jsonb_build_object(
            'device_id', x.id,
            'platform', x.platform,
            'app_id', x.app_id,
            'push_token', x.push_token,
            'reason', why,
            'invalidated_at', iso8601(now())
        ), NULL, NULL)::outbox_event
        FROM unnest(removed) x ORDER BY x.created_at, x.id
    ));
    RETURN QUERY SELECT * FROM unnest(removed) x ORDER BY x.created_at, x.id;
END
$$;
