-- Registers a batch of devices, taking the tokens' locks first, and one
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
