-- Removes devices whose push token is dead (a push service said so, or a
-- gateway through POST /v1/devices/invalidations) and announces each as
-- device.invalidated to the owner's webhooks, in the caller's transaction.
-- Their pushes go with them. Returns the removed devices in creation order.
CREATE OR REPLACE FUNCTION invalidate_devices(device_ids uuid[], why text) RETURNS SETOF devices
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
