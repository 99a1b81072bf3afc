-- The watch quota without the count (issue 33, decision 0055).
--
-- Migration 0018 counted all of a user's watches after every insert, under
-- the user's row lock: one user's creates took turns at the lock and each
-- turn cost more as the count grew (20,000 POST /v1/watches from 16
-- clients: 194 s). Here each user's watches are counted once, in a row of
-- user_watch_counts kept by statement triggers in the inserting or
-- deleting transaction, so the quota stays exact and a turn costs one
-- upsert of one row, whatever the count.
--
-- The counter row is the lock the inserting transactions of one user take
-- turns at (the upsert's row lock, held to commit), as the user's row was:
-- two creators of one user cannot both pass the limit. Deletes take it too,
-- so a delete and an insert cannot lose an update.
--
-- This replaces enforce_user_limit for watches only: webhooks, devices and
-- API keys are few per user and keep their count. The function below and
-- the new user_usage belong with the other functions in schema/functions
-- once they move there.

CREATE TABLE user_watch_counts (
    user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    watches bigint NOT NULL CHECK (watches >= 0)
);

-- Backfill under a lock that keeps watches still while they are counted.
LOCK TABLE watches IN SHARE MODE;
INSERT INTO user_watch_counts (user_id, watches)
SELECT user_id, count(*) FROM watches GROUP BY user_id;

CREATE FUNCTION count_user_watches() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    deployment_maximum constant integer :=
        nullif(current_setting('tidings.max_watches_per_user', true), '')::integer;
    counted record;
BEGIN
    IF TG_OP = 'INSERT' THEN
        -- In user id order, so two statements over the same users wait for
        -- each other instead of deadlocking.
        FOR counted IN
            WITH upserted AS (
                INSERT INTO user_watch_counts AS c (user_id, watches)
                SELECT n.user_id, count(*) FROM new_rows n GROUP BY n.user_id ORDER BY n.user_id
                ON CONFLICT (user_id) DO UPDATE SET watches = c.watches + EXCLUDED.watches
                RETURNING c.user_id, c.watches
            )
            SELECT p.watches, coalesce(u.max_watches, deployment_maximum) AS maximum
            FROM upserted p JOIN users u ON u.id = p.user_id
        LOOP
            IF counted.watches > counted.maximum THEN
                RAISE EXCEPTION 'user limit exceeded: resource=watches maximum=%', counted.maximum
                    USING ERRCODE = 'TD001';
            END IF;
        END LOOP;
    ELSE
        UPDATE user_watch_counts c
        SET watches = c.watches - removed.watches
        FROM (SELECT o.user_id, count(*) AS watches FROM old_rows o GROUP BY o.user_id ORDER BY o.user_id) removed
        WHERE c.user_id = removed.user_id;
    END IF;
    RETURN NULL;
END
$$;

DROP TRIGGER watches_enforce_user_limit ON watches;
CREATE TRIGGER watches_count_per_user_on_insert AFTER INSERT ON watches
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION count_user_watches();
CREATE TRIGGER watches_count_per_user_on_delete AFTER DELETE ON watches
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION count_user_watches();

-- The counter answers GET /v1/users/{id} too: one definition of usage.
CREATE OR REPLACE FUNCTION user_usage(of_user uuid, resource text) RETURNS bigint
LANGUAGE sql STABLE AS $$
    SELECT CASE resource
        WHEN 'watches' THEN coalesce((SELECT watches FROM user_watch_counts WHERE user_id = of_user), 0)
        WHEN 'webhooks' THEN (SELECT count(*) FROM webhooks WHERE user_id = of_user)
        WHEN 'devices' THEN (SELECT count(*) FROM devices WHERE user_id = of_user)
        WHEN 'api_keys' THEN (SELECT count(*) FROM api_keys WHERE user_id = of_user AND revoked_at IS NULL)
    END
$$;
