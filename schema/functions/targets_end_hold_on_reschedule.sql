-- A target held by a poller between checks is scheduled from that poller's
-- memory (decision 0058): should anything but its holder move its next check
-- earlier (a new watch, a changed rule, a secret rotation), the holder would
-- look at it too late, and should its interval change (watches paused,
-- resumed or edited) it would keep the old one. The hold ends instead,
-- which makes claim_at the new next_check_at: whichever poller walks the
-- due targets first claims it, and none does while it has no interval. The
-- holder's own result writes change no interval and never move a target's
-- next check earlier than the one it was checked for.
CREATE OR REPLACE FUNCTION targets_end_hold_on_reschedule() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.lease_owner := NULL;
    NEW.lease_until := NULL;
    NEW.lease_held := false;
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER targets_end_hold_on_reschedule
BEFORE UPDATE OF next_check_at, interval_seconds ON targets
FOR EACH ROW
WHEN (OLD.lease_held AND NEW.lease_held AND (NEW.next_check_at < OLD.next_check_at
      OR NEW.interval_seconds IS DISTINCT FROM OLD.interval_seconds))
EXECUTE FUNCTION targets_end_hold_on_reschedule();
