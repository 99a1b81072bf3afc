-- A target held by a poller between checks is scheduled from that poller's
-- memory (decision 0058) and checked from the copy of it that the poller's
-- last quiet write kept (decision 0062). Any write to a held target but its
-- holder's own result write (a watch added, a rule changed, a secret
-- rotated, the next check moved, the interval changed) ends the hold: the
-- holder's copy and schedule no longer describe it, and its next result
-- write is refused (CheckStore.writeTargets writes only under the hold a
-- check started with). claim_at becomes next_check_at: whichever poller
-- walks the due targets first claims it, and none does while it has no
-- interval. The holder's writes are told apart by lease_until, which each
-- sets from its new next check and nothing else sets while the hold stands.
CREATE OR REPLACE FUNCTION targets_end_hold_on_outside_write() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.lease_owner := NULL;
    NEW.lease_until := NULL;
    NEW.lease_held := false;
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER targets_end_hold_on_outside_write
BEFORE UPDATE ON targets
FOR EACH ROW
WHEN (OLD.lease_held AND NEW.lease_held AND NEW.lease_until IS NOT DISTINCT FROM OLD.lease_until)
EXECUTE FUNCTION targets_end_hold_on_outside_write();
