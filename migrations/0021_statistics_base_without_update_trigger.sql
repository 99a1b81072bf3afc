-- Migration 0016 kept a watch's statistics base current with a BEFORE
-- UPDATE OF target_id row trigger. PostgreSQL locks the old row for any
-- BEFORE UPDATE row trigger before it looks at the trigger's column list,
-- so every update of a watch (the poller writes results into watches)
-- paid a row lock and its WAL record: about twice the WAL records per
-- updated watch. The two statements that move a watch to another target
-- (WatchStore.update, SecretRotationStore's merge) set the base
-- themselves now, through watch_statistics_base() below; the insert
-- trigger stays (an INSERT has no old row to lock).
DROP TRIGGER watches_statistics_base_on_move ON watches;

-- The totals of target_id as a watch joining it starts from.
CREATE FUNCTION watch_statistics_base(target uuid)
RETURNS TABLE (requests bigint, not_modified bigint, bytes_received bigint, bytes_saved bigint)
LANGUAGE sql STABLE AS $$
    SELECT t.request_count, t.not_modified_count, t.bytes_received, t.bytes_saved FROM targets t WHERE t.id = target
$$;
