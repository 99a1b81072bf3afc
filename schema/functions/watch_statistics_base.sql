-- The totals of target_id as a watch joining it starts from.
CREATE OR REPLACE FUNCTION watch_statistics_base(target uuid)
RETURNS TABLE (requests bigint, not_modified bigint, bytes_received bigint, bytes_saved bigint)
LANGUAGE sql STABLE AS $$
    SELECT t.request_count, t.not_modified_count, t.bytes_received, t.bytes_saved FROM targets t WHERE t.id = target
$$;
