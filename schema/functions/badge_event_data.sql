-- What a push gateway needs to set every device's badge, without lookups:
-- the devices, and APNs and FCM payloads carrying the absolute count.
CREATE OR REPLACE FUNCTION badge_event_data(badge_user uuid, badge_count bigint, badge_sequence bigint, badge_updated_at timestamptz)
RETURNS jsonb
-- PL/pgSQL rather than SQL: its statements' plans are cached per session.
LANGUAGE plpgsql STABLE AS $$
DECLARE
    apns jsonb := jsonb_build_object(
        'headers', jsonb_build_object(
            'apns-push-type', 'alert',
            'apns-priority', '5',
            'apns-collapse-id', 'tidings-badge-' || badge_user
        ),
        'payload', jsonb_build_object('aps', jsonb_build_object('badge', badge_count))
    );
    device_list jsonb;
BEGIN
    SELECT coalesce(jsonb_agg(jsonb_build_object('id', d.id, 'platform', d.platform, 'push_token', d.push_token)
                              ORDER BY d.created_at, d.id), '[]'::jsonb)
    INTO device_list
    FROM devices d
    WHERE d.user_id = badge_user;
    RETURN jsonb_build_object(
        'user_id', badge_user,
        'count', badge_count,
        'sequence', badge_sequence,
        'updated_at', iso8601(badge_updated_at),
        'devices', device_list,
        'push', jsonb_build_object(
            'apns', apns,
            'fcm', jsonb_build_object(
                'android', jsonb_build_object('notification', jsonb_build_object('notification_count', badge_count)),
                'apns', apns
            )
        )
    );
END
$$;
