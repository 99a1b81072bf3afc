-- The statement trigger behind every limit; TG_ARGV[0] names the resource
-- and its new_rows are the rows the statement inserted. The message ends
-- with "maximum=N", which the stores read to name the limit in the answer.
CREATE OR REPLACE FUNCTION enforce_user_limit() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    resource constant text := TG_ARGV[0];
    deployment_maximum constant integer :=
        nullif(current_setting('tidings.max_' || resource || '_per_user', true), '')::integer;
    limited record;
    used bigint;
BEGIN
    -- A cursor loop: each user row is locked as it is fetched, in id order
    -- (so two statements over the same users wait instead of deadlocking),
    -- and the count below is a new statement, whose snapshot sees what the
    -- previous holder of the lock committed.
    FOR limited IN
        SELECT u.id, coalesce(
            CASE resource
                WHEN 'watches' THEN u.max_watches
                WHEN 'webhooks' THEN u.max_webhooks
                WHEN 'devices' THEN u.max_devices
                WHEN 'api_keys' THEN u.max_api_keys
            END,
            deployment_maximum
        ) AS maximum
        FROM users u
        WHERE u.id IN (SELECT n.user_id FROM new_rows n)
        ORDER BY u.id
        FOR NO KEY UPDATE OF u
    LOOP
        CONTINUE WHEN limited.maximum IS NULL;
        used := user_usage(limited.id, resource);
        IF used > limited.maximum THEN
            RAISE EXCEPTION 'user limit exceeded: resource=% maximum=%', resource, limited.maximum
                USING ERRCODE = 'TD001';
        END IF;
    END LOOP;
    RETURN NULL;
END
$$;

-- Global webhooks have a NULL user_id, which matches no user: not limited.
CREATE OR REPLACE TRIGGER webhooks_enforce_user_limit AFTER INSERT ON webhooks
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION enforce_user_limit('webhooks');

CREATE OR REPLACE TRIGGER devices_enforce_user_limit AFTER INSERT ON devices
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION enforce_user_limit('devices');

CREATE OR REPLACE TRIGGER api_keys_enforce_user_limit AFTER INSERT ON api_keys
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION enforce_user_limit('api_keys');
