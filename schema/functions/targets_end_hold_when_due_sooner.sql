-- A target held by a poller between checks is scheduled from that poller's
-- memory (decision 0058): should anything but its holder move its next check
-- earlier (a new watch, a changed rule or interval, a secret rotation), the
-- holder would look at it too late. The hold ends instead, which makes
-- claim_at the new next_check_at, and whichever poller walks the due
-- targets first claims it. The holder's own result writes never move a
-- target's next check earlier than the one it was checked for.
CREATE OR REPLACE FUNCTION targets_end_hold_when_due_sooner() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.lease_owner := NULL;
    NEW.lease_until := NULL;
    NEW.lease_held := false;
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER targets_end_hold_when_due_sooner
BEFORE UPDATE OF next_check_at ON targets
FOR EACH ROW
WHEN (OLD.lease_held AND NEW.lease_held AND NEW.next_check_at < OLD.next_check_at)
EXECUTE FUNCTION targets_end_hold_when_due_sooner();
