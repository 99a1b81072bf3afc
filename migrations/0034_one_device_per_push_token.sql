-- A push token (or a web push endpoint) names one app install to its push
-- service, so it belongs to one device (issue 30, item 6): before this, any
-- user could register another's token as its own device and receive that
-- user's pushes through the operator's credentials. A token is now unique
-- per (platform, app_id); registering it from another user moves it to
-- that user, which is what a phone signing in to another account does. The
-- previous owner's device goes, announced to its owner as
-- device.invalidated (invalidate_devices, 0020: the same outbox, in the
-- same transaction).

-- Registrations and edits of one token take turns: they hold this advisory
-- lock ("devt", hashtext of the token) until they commit, so two users
-- registering a token at once end with one device, the later one's.
-- Taken in key order, so that batches naming several tokens cannot
-- deadlock; every caller takes them before any row lock on devices.
CREATE FUNCTION lock_device_tokens(tokens text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    token_key integer;
BEGIN
    FOR token_key IN SELECT DISTINCT hashtext(t) FROM unnest(tokens) AS t ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(1684371060, token_key);
    END LOOP;
END
$$;

-- The reason device.invalidated gives for a token that moved.
CREATE FUNCTION device_token_moved_reason() RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'push token registered by another user' $$;

-- Removes the other users' devices holding one of `claims` (elements with
-- user_id, platform, app_id and push_token, as the claiming device will
-- have them), announced as device.invalidated. The caller holds the
-- tokens' locks (lock_device_tokens).
CREATE FUNCTION move_device_tokens(claims jsonb) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM invalidate_devices(ARRAY(
        SELECT d.id
        FROM jsonb_to_recordset(claims) AS c (user_id uuid, platform text, app_id text, push_token text)
        JOIN devices d ON d.platform = c.platform AND coalesce(d.app_id, '') = coalesce(c.app_id, '')
            AND md5(d.push_token) = md5(c.push_token) AND d.push_token = c.push_token
        WHERE d.user_id <> c.user_id
    ), device_token_moved_reason());
END
$$;

-- Old data may hold a token more than once: the device registered most
-- recently keeps it (last_seen_at, then created_at, then id, so the choice
-- is the same on every run), the others are invalidated with their events.
SELECT count(*) FROM invalidate_devices(ARRAY(
    SELECT ranked.id FROM (
        SELECT d.id, row_number() OVER (
            PARTITION BY d.platform, coalesce(d.app_id, ''), d.push_token
            ORDER BY d.last_seen_at DESC, d.created_at DESC, d.id DESC
        ) AS rank
        FROM devices d
    ) AS ranked
    WHERE ranked.rank > 1
), device_token_moved_reason());

-- md5 of the token, as in devices_user_push_token_key (0002): tokens may be
-- longer than a B-tree entry. Also the index move_device_tokens looks up.
CREATE UNIQUE INDEX devices_platform_app_push_token_key ON devices (platform, coalesce(app_id, ''), md5(push_token));

-- register_distinct_devices (0033), moving tokens from other users first.
-- Each registration claims its token with its app_id as the device will
-- have it (a registration without app_id keeps the device's).
CREATE OR REPLACE FUNCTION register_distinct_devices(registrations jsonb)
RETURNS TABLE (
    id uuid, user_id uuid, platform text, push_token text, app_id text, name text, locale text,
    last_seen_at timestamptz, created_at timestamptz, updated_at timestamptz, created boolean
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    PERFORM move_device_tokens(coalesce((
        SELECT jsonb_agg(jsonb_build_object(
            'user_id', r.value->>'user_id', 'platform', r.value->>'platform',
            'app_id', coalesce(r.value->>'app_id', own.app_id), 'push_token', r.value->>'push_token'))
        FROM jsonb_array_elements(registrations) AS r (value)
        LEFT JOIN devices own ON own.user_id = (r.value->>'user_id')::uuid
            AND md5(own.push_token) = md5(r.value->>'push_token') AND own.push_token = r.value->>'push_token'
    ), '[]'::jsonb));
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
            web_push_p256dh = EXCLUDED.web_push_p256dh,
            web_push_auth = EXCLUDED.web_push_auth,
            last_seen_at = now(),
            updated_at = now()
        RETURNING d.id, d.user_id, d.platform, d.push_token, d.app_id, d.name, d.locale,
                  d.last_seen_at, d.created_at, d.updated_at, (d.xmax = 0) AS created
    )
    SELECT u.id, u.user_id, u.platform, u.push_token, u.app_id, u.name, u.locale,
           u.last_seen_at, u.created_at, u.updated_at, u.created
    FROM upserted u
    JOIN input i ON i.user_id = u.user_id AND i.push_token = u.push_token
    ORDER BY i.ordinality;
END
$$;

-- register_devices (0013) taking the tokens' locks first, and one
-- statement only for batches whose tokens are all distinct: the same token
-- twice, from one user or two, runs element by element, in array order.
CREATE OR REPLACE FUNCTION register_devices(registrations jsonb)
RETURNS TABLE (
    id uuid, user_id uuid, platform text, push_token text, app_id text, name text, locale text,
    last_seen_at timestamptz, created_at timestamptz, updated_at timestamptz, created boolean
)
LANGUAGE plpgsql AS $$
DECLARE
    registration jsonb;
BEGIN
    PERFORM lock_device_tokens(ARRAY(SELECT value->>'push_token' FROM jsonb_array_elements(registrations)));
    IF (SELECT count(*) = count(DISTINCT md5(value->>'push_token')) FROM jsonb_array_elements(registrations)) THEN
        RETURN QUERY SELECT * FROM register_distinct_devices(registrations);
        RETURN;
    END IF;
    FOR registration IN SELECT value FROM jsonb_array_elements(registrations) WITH ORDINALITY ORDER BY ordinality LOOP
        RETURN QUERY SELECT * FROM register_distinct_devices(jsonb_build_array(registration));
    END LOOP;
END
$$;
