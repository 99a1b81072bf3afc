-- Keeps a target consistent with its watches after any change, including
-- the cascade when a user is deleted: a target without watches is deleted,
-- otherwise its interval becomes the shortest among its unpaused watches
-- and its max_interval_seconds the shortest maximum among them, never below
-- the interval (NULL with it when every watch is paused), and a poller's
-- hold on it between checks ends. The target row is
-- locked first so that the statements after it (each with a fresh snapshot
-- under READ COMMITTED) see every watch committed by a transaction that was
-- attaching itself to the same target.
CREATE OR REPLACE FUNCTION sync_target_with_watches(target uuid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    shortest integer;
    longest integer;
BEGIN
    PERFORM 1 FROM targets WHERE id = target FOR UPDATE;
    IF NOT EXISTS (SELECT 1 FROM watches WHERE target_id = target) THEN
        DELETE FROM targets WHERE id = target;
        RETURN;
    END IF;
    -- Its holder checks a held target from a copy that includes the
    -- watches (decision 0062): any change of them ends the hold, so the
    -- next check reads them.
    UPDATE targets SET lease_owner = NULL, lease_until = NULL, lease_held = false
    WHERE id = target AND lease_held;
    SELECT min(interval_seconds), greatest(min(interval_seconds), min(max_interval_seconds))
    INTO shortest, longest
    FROM watches WHERE target_id = target AND NOT paused;
    UPDATE targets
    SET interval_seconds = shortest,
        max_interval_seconds = longest,
        -- A shorter interval takes effect now, not after the longer one
        -- ends; so does a shorter maximum.
        next_check_at = least(next_check_at, coalesce(last_checked_at, now()) + make_interval(secs =>
            CASE WHEN interval_seconds IS DISTINCT FROM shortest THEN shortest ELSE longest END))
    WHERE id = target
      AND (interval_seconds IS DISTINCT FROM shortest OR max_interval_seconds IS DISTINCT FROM longest);
END
$$;

CREATE OR REPLACE FUNCTION watches_sync_targets() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM sync_target_with_watches(NEW.target_id);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM sync_target_with_watches(OLD.target_id);
    ELSE
        PERFORM sync_target_with_watches(OLD.target_id);
        IF NEW.target_id <> OLD.target_id THEN
            PERFORM sync_target_with_watches(NEW.target_id);
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER watches_sync_targets
AFTER INSERT OR DELETE OR UPDATE OF target_id, interval_seconds, max_interval_seconds, paused ON watches
FOR EACH ROW EXECUTE FUNCTION watches_sync_targets();
