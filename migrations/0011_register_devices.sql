-- Device registration in batches: concurrent POST /v1/devices requests are
-- gathered by the API (group commit) and registered by one call of this
-- function, so they share one round trip and one durable commit instead of
-- each waiting for the WAL flush of the one before (re-registering the same
-- token updates the same row, and each update waits for the previous one's
-- commit to release the row).
--
-- `registrations` is a JSON array of {user_id, platform, push_token, app_id,
-- name, locale}; each element is the upsert of DeviceStore.register, applied
-- in array order (so two registrations of one token in a batch behave as two
-- requests one after the other), and yields exactly one row, in the same
-- order. `created` is true for a row this call inserted: an updated row
-- carries the updating transaction's id in xmax, also when the same call
-- inserted it earlier.
CREATE FUNCTION register_devices(registrations jsonb)
RETURNS TABLE (
    id uuid, user_id uuid, platform text, push_token text, app_id text, name text, locale text,
    last_seen_at timestamptz, created_at timestamptz, updated_at timestamptz, created boolean
)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    registration jsonb;
BEGIN
    FOR registration IN SELECT value FROM jsonb_array_elements(registrations) WITH ORDINALITY ORDER BY ordinality LOOP
        RETURN QUERY
        INSERT INTO devices AS d (user_id, platform, push_token, app_id, name, locale)
        VALUES ((registration->>'user_id')::uuid, registration->>'platform', registration->>'push_token',
                registration->>'app_id', registration->>'name', registration->>'locale')
        ON CONFLICT (user_id, md5(push_token)) DO UPDATE SET
            platform = EXCLUDED.platform,
            push_token = EXCLUDED.push_token,
            app_id = coalesce(EXCLUDED.app_id, d.app_id),
            name = coalesce(EXCLUDED.name, d.name),
            locale = coalesce(EXCLUDED.locale, d.locale),
            last_seen_at = now(),
            updated_at = now()
        RETURNING d.id, d.user_id, d.platform, d.push_token, d.app_id, d.name, d.locale,
                  d.last_seen_at, d.created_at, d.updated_at, (d.xmax = 0);
    END LOOP;
END
$$;
