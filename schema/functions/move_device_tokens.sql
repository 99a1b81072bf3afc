-- Removes the other users' devices holding one of `claims` (elements with
-- user_id, platform, app_id and push_token, as the claiming device will
-- have them), announced as device.invalidated. The caller holds the
-- tokens' locks (lock_device_tokens).
CREATE OR REPLACE FUNCTION move_device_tokens(claims jsonb) RETURNS void
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
