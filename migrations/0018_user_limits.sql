-- Per-user limits on what a tenant can own: watches, its own webhooks (not
-- global ones), devices and active (unrevoked) API keys. Issue 14,
-- docs/decisions/0022-quotas-and-rate-limits.md.
--
-- The deployment's limits are session settings the service sets on every
-- connection (tidings.max_watches_per_user, tidings.max_webhooks_per_user,
-- tidings.max_devices_per_user, tidings.max_api_keys_per_user, from the
-- TIDINGS_MAX_*_PER_USER variables); a user's own column, when not NULL,
-- replaces the deployment's limit for that user (set by an admin through
-- PATCH /v1/users/{id}). A session without the setting (psql, a bulk
-- import, a benchmark's seeding) is not limited except by a user's own
-- columns: the limits are the service's policy towards tenants.
--
-- Enforced by triggers, on every path that inserts (watch creation, webhook
-- creation, key issue, device registration alone or in a group-commit
-- batch of register_devices): after the statement, for each user that got
-- rows, the user's row is locked FOR NO KEY UPDATE (in id order), the rows
-- are counted with a fresh snapshot, and past the limit the statement fails
-- with SQLSTATE TD001, which rolls back everything the transaction wrote.
-- The lock makes concurrent inserts of one user take turns at the count,
-- so they cannot overshoot together; NO KEY UPDATE, because the foreign
-- keys of the inserts already hold KEY SHARE on the same row, which FOR
-- UPDATE would wait on (two creators would deadlock). Only inserted rows
-- count: a device re-registration is an update (ON CONFLICT DO UPDATE) and
-- its rows are not in the INSERT trigger's transition table.
--
-- Lowering a limit below what a user has removes nothing; creating more
-- fails until the user is under it again.

ALTER TABLE users
    ADD COLUMN max_watches integer CHECK (max_watches BETWEEN 0 AND 1000000),
    ADD COLUMN max_webhooks integer CHECK (max_webhooks BETWEEN 0 AND 1000000),
    ADD COLUMN max_devices integer CHECK (max_devices BETWEEN 0 AND 1000000),
    ADD COLUMN max_api_keys integer CHECK (max_api_keys BETWEEN 0 AND 1000000);

-- How many of `resource` the user has, as its limit counts them. The one
-- definition used by the triggers and by GET /v1/users/{id}. Each count
-- is an index range of one user (watches_user_created_idx,
-- webhooks_user_created_idx, devices_user_created_idx, api_keys_user_id_idx).
CREATE FUNCTION user_usage(of_user uuid, resource text) RETURNS bigint
LANGUAGE sql STABLE AS $$
    SELECT CASE resource
        WHEN 'watches' THEN (SELECT count(*) FROM watches WHERE user_id = of_user)
        WHEN 'webhooks' THEN (SELECT count(*) FROM webhooks WHERE user_id = of_user)
        WHEN 'devices' THEN (SELECT count(*) FROM devices WHERE user_id = of_user)
        WHEN 'api_keys' THEN (SELECT count(*) FROM api_keys WHERE user_id = of_user AND revoked_at IS NULL)
    END
$$;

-- The statement trigger behind every limit; TG_ARGV[0] names the resource
-- and its new_rows are the rows the statement inserted. The message ends
-- with "maximum=N", which the stores read to name the limit in the answer.
CREATE FUNCTION enforce_user_limit() RETURNS trigger
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

CREATE TRIGGER watches_enforce_user_limit AFTER INSERT ON watches
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION enforce_user_limit('watches');
-- Global webhooks have a NULL user_id, which matches no user: not limited.
CREATE TRIGGER webhooks_enforce_user_limit AFTER INSERT ON webhooks
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION enforce_user_limit('webhooks');
CREATE TRIGGER devices_enforce_user_limit AFTER INSERT ON devices
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION enforce_user_limit('devices');
CREATE TRIGGER api_keys_enforce_user_limit AFTER INSERT ON api_keys
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION enforce_user_limit('api_keys');
