-- Writes the content results of a batch of watches, as the poller's
-- eventful write decided them from the watches it holds locked (with their
-- users' badges) in the same transaction: it judges, this only writes
-- (decision 0049).
--
-- 'baseline' and 'changed' store the new hash and snapshot ('unchanged'
-- only clears a pending quiet re-baseline). Each change of an unpaused
-- watch takes the next position of its user's order (drawn before the
-- change is inserted, so the badge.updated and watch.changed events its
-- triggers and this function queue come after it) and is announced as
-- watch.changed, carrying that position as `cursor`, the feed position a
-- client can resume from. Returns the change recorded per watch.
CREATE OR REPLACE FUNCTION record_changes(
    watch_ids uuid[],
    results text[],
    new_hashes text[],
    new_snapshots text[],
    snapshots_truncated boolean[],
    change_diffs text[],
    http_statuses integer[],
    content_lengths bigint[]
) RETURNS TABLE (watch_id uuid, change_id uuid)
LANGUAGE plpgsql AS $$
DECLARE
    new_changes uuid[];
BEGIN
    WITH input AS (
        SELECT DISTINCT ON (w.id) w.id, w.user_id, w.content_hash, w.paused, w.quiet_rebaseline, i.result, i.new_hash, i.snapshot,
               i.truncated, i.diff, i.http_status, i.content_length
        FROM unnest(watch_ids, results, new_hashes, new_snapshots, snapshots_truncated, change_diffs, http_statuses, content_lengths)
             AS i(watch_id, result, new_hash, snapshot, truncated, diff, http_status, content_length)
        JOIN watches w ON w.id = i.watch_id
        ORDER BY w.id
    ), drawn AS MATERIALIZED (
        SELECT d.* FROM draw_positions(
            ARRAY(SELECT p.user_id FROM input p WHERE p.result = 'changed' AND NOT p.paused GROUP BY p.user_id ORDER BY p.user_id),
            ARRAY(SELECT count(*) FROM input p WHERE p.result = 'changed' AND NOT p.paused GROUP BY p.user_id ORDER BY p.user_id)
        ) d
    ), updated AS (
        UPDATE watches w
        SET content_hash = p.new_hash,
            snapshot = p.snapshot,
            quiet_rebaseline = false,
            last_changed_at = CASE WHEN p.result = 'changed' AND NOT p.paused THEN now() ELSE w.last_changed_at END,
            updated_at = now()
        FROM input p
        WHERE w.id = p.id AND (p.result <> 'unchanged' OR p.quiet_rebaseline)
    ), inserted AS (
        INSERT INTO changes (watch_id, user_id, previous_hash, new_hash, http_status, content_length,
                             snapshot, snapshot_truncated, diff, user_position)
        SELECT p.id, p.user_id, p.content_hash, p.new_hash, p.http_status, p.content_length,
               p.snapshot, p.truncated, p.diff,
               d.first_position - 1 + row_number() OVER (PARTITION BY p.user_id ORDER BY p.id)
        FROM input p JOIN drawn d ON d.user_id = p.user_id
        WHERE p.result = 'changed' AND NOT p.paused
        RETURNING changes.id, changes.watch_id
    )
    SELECT coalesce(array_agg(x.id), '{}') INTO new_changes FROM inserted x;

    IF cardinality(new_changes) > 0 THEN
        -- After the statement above its triggers have run: the counts below
        -- include this batch.
        PERFORM 1 FROM queue_events((
            SELECT array_agg(ROW(c.user_id, 'watch.changed', jsonb_build_object(
                'watch_id', c.watch_id,
                'name', w.name,
                'url', t.url,
                'change_id', c.id,
                'detected_at', iso8601(c.detected_at),
                'previous_hash', c.previous_hash,
                'new_hash', c.new_hash,
                'unread_count', w.unread_count,
                'unread_total', b.count,
                'diff', c.diff,
                'cursor', c.user_position::text
            ), NULL, NULL)::outbox_event ORDER BY c.user_id, c.user_position)
            FROM changes c
            JOIN watches w ON w.id = c.watch_id
            JOIN targets t ON t.id = w.target_id
            JOIN badges b ON b.user_id = c.user_id
            WHERE c.id = ANY (new_changes)
        ));
    END IF;

    RETURN QUERY SELECT c.watch_id, c.id FROM changes c WHERE c.id = ANY (new_changes);
END
$$;
