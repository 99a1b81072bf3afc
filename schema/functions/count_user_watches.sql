-- The watch quota kept by a counter (migration 0035, decision 0055): one
-- row of user_watch_counts per user, moved by statement triggers in the
-- inserting or deleting transaction. The upsert's row lock is what one
-- user's creators take turns at, so two cannot both pass the limit.
-- Watches only: webhooks, devices and API keys keep enforce_user_limit.
CREATE OR REPLACE FUNCTION count_user_watches() RETURNS trigger
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

CREATE OR REPLACE TRIGGER watches_count_per_user_on_insert AFTER INSERT ON watches
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION count_user_watches();
CREATE OR REPLACE TRIGGER watches_count_per_user_on_delete AFTER DELETE ON watches
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION count_user_watches();
