-- Claims become HOT updates.
--
-- A claim used to move next_check_at to the lease's end so the next claim's
-- scan of the due index started past every target in flight; that made it
-- an update of an indexed column, i.e. a new index entry in each of the
-- three indexes of targets (the unique identity key with its uniqueness
-- check included), on top of the same for the result write. Claims now set
-- only the lease columns, which no index covers, and the scheduler walks
-- the due index from a keyset cursor (next_check_at, id) instead: the index
-- needs the id as a tie-breaker (10,000 targets made due by one statement
-- share one timestamp).
--
-- HOT also needs room on the row's page: a lower fillfactor leaves it for
-- new pages (existing pages get it when the table is rewritten).
CREATE INDEX targets_due_keyset_idx ON targets (next_check_at, id) WHERE interval_seconds IS NOT NULL;
DROP INDEX targets_due_idx;
ALTER TABLE targets SET (fillfactor = 70);
