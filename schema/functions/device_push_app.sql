-- The push app a device is pushed through, or NULL: ios -> apns, android ->
-- fcm (the device's app_id, or the only app of that service);
-- web -> the deployment's VAPID app, for a device with a subscription.
CREATE OR REPLACE FUNCTION device_push_app(device_platform text, device_app_id text, subscribed boolean) RETURNS uuid
LANGUAGE sql STABLE AS $$
    SELECT a.id FROM push_apps a
    WHERE device_platform = 'web' AND subscribed AND a.platform = 'webpush'
    UNION ALL
    SELECT a.id FROM push_apps a
    WHERE device_platform <> 'web'
      AND a.platform = CASE device_platform WHEN 'ios' THEN 'apns' WHEN 'android' THEN 'fcm' END
      AND (a.app_id = device_app_id
           OR (device_app_id IS NULL
               AND (SELECT count(*) FROM push_apps b WHERE b.platform = a.platform) = 1))
$$;

-- The two-argument forms for any caller that has only a
-- device's platform and app id: a web device counts as subscribed.
CREATE OR REPLACE FUNCTION device_push_app(device_platform text, device_app_id text) RETURNS uuid
LANGUAGE sql STABLE AS $$
    SELECT device_push_app(device_platform, device_app_id, true)
$$;
