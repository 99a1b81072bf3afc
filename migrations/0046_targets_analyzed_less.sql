-- targets is analyzed as its shape changes, not as its rows are rewritten
-- (decision 0063).
--
-- Every check rewrites its target's row, so the rows modified since the
-- last ANALYZE passed autovacuum's threshold (10 % of the table) within
-- seconds on any busy poller, and targets was analyzed on almost every
-- autovacuum_naptime. Each ANALYZE read the whole table (up to 30,000
-- sampled rows) and sorted the values of every column: 230-310 ms for
-- the benchmark's 20,000 targets, every 5-10 s, some 8-12 µs of
-- PostgreSQL's CPU per check. Nothing is planned on most of those
-- columns, and their distribution tells the planner nothing when it
-- shifts.
--
-- So ANALYZE waits for ten times the table's rows in modifications (still
-- soon after an import multiplies it), and keeps statistics only for the
-- columns queries select targets by: id, claim_at, next_check_at,
-- interval_seconds, the lease columns and secrets_sealed.
ALTER TABLE targets SET (autovacuum_analyze_scale_factor = 10);

ALTER TABLE targets
    ALTER COLUMN url SET STATISTICS 0,
    ALTER COLUMN headers SET STATISTICS 0,
    ALTER COLUMN headers_fingerprint SET STATISTICS 0,
    ALTER COLUMN etag SET STATISTICS 0,
    ALTER COLUMN last_modified SET STATISTICS 0,
    ALTER COLUMN last_checked_at SET STATISTICS 0,
    ALTER COLUMN last_status SET STATISTICS 0,
    ALTER COLUMN last_error SET STATISTICS 0,
    ALTER COLUMN consecutive_failures SET STATISTICS 0,
    ALTER COLUMN request_count SET STATISTICS 0,
    ALTER COLUMN not_modified_count SET STATISTICS 0,
    ALTER COLUMN bytes_received SET STATISTICS 0,
    ALTER COLUMN bytes_saved SET STATISTICS 0,
    ALTER COLUMN created_at SET STATISTICS 0,
    ALTER COLUMN version_url SET STATISTICS 0,
    ALTER COLUMN version_pointer SET STATISTICS 0,
    ALTER COLUMN last_version SET STATISTICS 0,
    ALTER COLUMN version_headers SET STATISTICS 0,
    ALTER COLUMN checks_since_full SET STATISTICS 0,
    ALTER COLUMN last_body_size SET STATISTICS 0,
    ALTER COLUMN body_sha256 SET STATISTICS 0,
    ALTER COLUMN max_interval_seconds SET STATISTICS 0,
    ALTER COLUMN content_changed_at SET STATISTICS 0;
