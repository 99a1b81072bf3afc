-- The process each lease owner runs in. A process's engines (poller,
-- webhook and push dispatchers) stall and resume together: after a pause
-- longer than dead_after (a suspended VM, SIGSTOP), the first of them to
-- beat again found its siblings' rows stale, reaped them, freed every
-- lease and hold of its own process, and raced that process's writers for
-- the same target rows (deadlocks, retried for seconds). A reaper now
-- spares its own process's owners. Rows without a process (written by an
-- older version during a rolling upgrade) are reaped as before.
ALTER TABLE lease_owners ADD COLUMN process text;
