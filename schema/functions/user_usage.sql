-- How many of `resource` the user has, as its limit counts them. The one
-- definition used by the triggers and by GET /v1/users/{id}. Watches are
-- read from their counter (count_user_watches); each other count is an
-- index range of one user (webhooks_user_created_idx,
-- devices_user_created_idx, api_keys_user_id_idx).
CREATE OR REPLACE FUNCTION user_usage(of_user uuid, resource text) RETURNS bigint
LANGUAGE sql STABLE AS $$
    SELECT CASE resource
        WHEN 'watches' THEN coalesce((SELECT watches FROM user_watch_counts WHERE user_id = of_user), 0)
        WHEN 'webhooks' THEN (SELECT count(*) FROM webhooks WHERE user_id = of_user)
        WHEN 'devices' THEN (SELECT count(*) FROM devices WHERE user_id = of_user)
        WHEN 'api_keys' THEN (SELECT count(*) FROM api_keys WHERE user_id = of_user AND revoked_at IS NULL)
    END
$$;
