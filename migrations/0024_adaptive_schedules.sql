-- Adaptive schedules (issue 16, decision 0028). A watch allows its target to
-- be checked as rarely as every max_interval_seconds while the content stays
-- the same; back to interval_seconds right after a change. By default the
-- maximum is the interval, so nothing changes unless a watch asks.
--
-- max_interval_chosen: the user set the maximum. When not, it follows the
-- interval (and the deployment default) whenever the interval changes.
ALTER TABLE watches
    ADD COLUMN max_interval_seconds integer,
    ADD COLUMN max_interval_chosen boolean NOT NULL DEFAULT false;
UPDATE watches SET max_interval_seconds = interval_seconds;
ALTER TABLE watches
    ALTER COLUMN max_interval_seconds SET NOT NULL,
    ADD CONSTRAINT watches_max_interval_check CHECK (max_interval_seconds >= interval_seconds);

-- A row inserted without a maximum (a statement that predates it) gets
-- its interval, the default that changes nothing.
CREATE FUNCTION watches_default_max_interval() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.max_interval_seconds := coalesce(NEW.max_interval_seconds, NEW.interval_seconds);
    RETURN NEW;
END
$$;

CREATE TRIGGER watches_default_max_interval
BEFORE INSERT ON watches
FOR EACH ROW EXECUTE FUNCTION watches_default_max_interval();

-- The target's bounds, kept by sync_target_with_watches like
-- interval_seconds: the shortest maximum among the unpaused watches, never
-- below the interval (NULL with it when every watch is paused).
-- content_changed_at: when a check last saw any watch's content change (or
-- when the target was created); the back-off grows with the time since, so
-- it survives restarts and is the same on every replica.
ALTER TABLE targets
    ADD COLUMN max_interval_seconds integer,
    ADD COLUMN content_changed_at timestamptz NOT NULL DEFAULT now(),
    ADD CONSTRAINT targets_max_interval_check CHECK (max_interval_seconds >= interval_seconds);
UPDATE targets SET max_interval_seconds = interval_seconds WHERE interval_seconds IS NOT NULL;

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

DROP TRIGGER watches_sync_targets ON watches;
CREATE TRIGGER watches_sync_targets
AFTER INSERT OR DELETE OR UPDATE OF target_id, interval_seconds, max_interval_seconds, paused ON watches
FOR EACH ROW EXECUTE FUNCTION watches_sync_targets();
