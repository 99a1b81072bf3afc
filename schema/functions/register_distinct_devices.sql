-- Registers devices whose tokens are all distinct, in one statement,
-- moving tokens from other users first.
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
