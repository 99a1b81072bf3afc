-- Push claims update rows in place (decision 0031).
--
-- A claim used to move a leased push's next_attempt_at to the lease's end
-- and set lease_owner, both indexed, so every claimed row got a new entry
-- in each of the table's eight indexes. Now a claim sets only the lease
-- (lease_owner, lease_until, updated_at), which no index covers: PostgreSQL
-- writes the new version on the same page without index entries (a HOT
-- update). The pushes in flight keep their place at the head of the due
-- index and each claim steps over them by their lease.

-- Freed leases are found through the pending pushes instead (the release
-- names status = 'pending'): only shutdown and the reaper look for them.
DROP INDEX pushes_leased_idx;

-- Room on each page for the claimed versions of the rows inserted there.
-- New pages only; those written before fill up as they are rewritten.
ALTER TABLE pushes SET (fillfactor = 80);
