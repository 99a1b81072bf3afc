-- Why a device without a push app gets none, for its push log.
CREATE OR REPLACE FUNCTION device_push_skip_reason(device_platform text, device_app_id text, subscribed boolean) RETURNS text
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

CREATE OR REPLACE FUNCTION device_push_skip_reason(device_platform text, device_app_id text) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT device_push_skip_reason(device_platform, device_app_id, true)
$$;
