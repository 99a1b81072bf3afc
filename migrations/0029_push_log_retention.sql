-- Finished pushes are pruned after the event retention (TIDINGS_EVENT_RETENTION,
-- at least the sync budget's period): without it the push log grew by a
-- row per count change per device, forever.
--
-- The prune finds old rows by created_at. Rows are inserted in time order,
-- so a BRIN index finds them for almost nothing: it is a few pages, an
-- insert rarely touches it, and no update changes created_at, so the
-- claim's in-place (HOT) update of the lease stays possible (migration 0027).
CREATE INDEX pushes_created_brin ON pushes USING brin (created_at);
