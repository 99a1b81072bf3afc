-- Held targets are scheduled by their poller, and their result writes are
-- HOT updates (decision 0058).
--
-- Every result write moved next_check_at, which the due index covered, so
-- each check inserted an entry in every index of targets (a non-HOT update,
-- and dead index entries for autovacuum to clear). A target held by its
-- poller between checks (decision 0057) does not need the index: its
-- holder keeps its due time in memory and reads the row by id when it falls
-- due. So the walk of due targets now runs on claim_at, which is
-- next_check_at for a target nobody holds and 'infinity' for a held one;
-- a held target's result write leaves claim_at as it was, changes no
-- indexed column, and stays on its page.
--
-- A hold still ends the ways it did: given back by a result write, taken
-- over by a check asked for through the API, freed with a dead poller's
-- leases (LeaseOwnerStore.reapDead) or at shutdown. Each sets lease_held
-- to false, and claim_at follows. A held target whose next check is moved
-- earlier by anything but its holder (a watch added, a rule changed), or
-- whose interval changes (watches paused, resumed, edited), is given back
-- by a trigger (schema/functions/targets_end_hold_on_reschedule.sql), as
-- its holder would look at it too late or on the old interval.
ALTER TABLE targets ADD COLUMN claim_at timestamptz NOT NULL GENERATED ALWAYS AS (
    CASE WHEN lease_held AND lease_owner IS NOT NULL THEN 'infinity'::timestamptz ELSE next_check_at END
) STORED;

CREATE INDEX targets_claim_idx ON targets (claim_at, id) WHERE interval_seconds IS NOT NULL;
DROP INDEX targets_due_keyset_idx;
