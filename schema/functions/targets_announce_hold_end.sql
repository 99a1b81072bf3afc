-- A poller checks the targets it holds from the copy its last quiet write
-- kept (decision 0062). Every hold that ends, however it ends (an outside
-- write, a change of the target's watches, a check asked for through the
-- API, a release, the reaping of a dead poller, the target deleted), is
-- announced on channel tidings_holds_ended with the target's id, so that
-- its holder drops the copy at once and reads the row before it checks
-- again (decision 0064). A holder's own result write keeps the hold and
-- announces nothing, so a steady poller sends no notifications.
--
-- BEFORE UPDATE, where the WHEN reads the rows the other triggers have
-- already unpacked (an AFTER trigger cost 0.25 us more per result write);
-- BEFORE triggers fire in name order, so this one sees what
-- targets_end_hold_on_outside_write decided, and any trigger that ends
-- holds must sort before targets_hold_ended. A notification is sent only
-- if the transaction commits.
CREATE OR REPLACE FUNCTION targets_announce_hold_end() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tidings_holds_ended', OLD.id::text);
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER targets_hold_ended BEFORE UPDATE ON targets
    FOR EACH ROW
    WHEN (OLD.lease_held AND NOT (NEW.lease_held AND NEW.lease_owner IS NOT DISTINCT FROM OLD.lease_owner))
    EXECUTE FUNCTION targets_announce_hold_end();

CREATE OR REPLACE TRIGGER targets_held_deleted AFTER DELETE ON targets
    FOR EACH ROW WHEN (OLD.lease_held)
    EXECUTE FUNCTION targets_announce_hold_end();
