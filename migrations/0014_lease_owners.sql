-- Lease owners that heartbeat, so a crashed process's leases are freed in
-- seconds instead of when they run out.
--
-- Every poller and webhook dispatcher registers a row under the name it
-- writes into lease_owner, and moves heartbeat_at to now() every second
-- (one UPDATE per owner, however many leases it holds). An owner that
-- stopped beating for dead_after is dead: any process deletes its row and,
-- in the same transaction, clears its leases (deliveries or targets, as
-- holds says), so they can be claimed at once. dead_after is the owner's
-- own: the time after which it starts nothing more without a fresh beat,
-- plus the longest that work it started may still run (a dispatcher's
-- webhook timeout), so nothing it started is still in flight when its
-- leases are freed. lease_until stays a backstop for owners without a row.
CREATE TABLE lease_owners (
    owner        text PRIMARY KEY,
    holds        text NOT NULL CHECK (holds IN ('deliveries', 'targets')),
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now(),
    dead_after   interval NOT NULL CHECK (dead_after > interval '0')
);

-- A small table updated every second per owner: keep its pages compact.
ALTER TABLE lease_owners SET (fillfactor = 50);
