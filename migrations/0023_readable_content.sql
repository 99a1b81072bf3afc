-- Readable changes by default (decision 0027).
--
-- A watch without an extraction rule now compares a page's visible text
-- (JSON as canonical JSON), and every rule but the new raw one keeps line
-- breaks, so a hash stored before this migration would differ from the
-- first one taken after it without anything having changed. Every watch
-- with a baseline is marked for a quiet re-baseline: the first content
-- its next full check records is taken as a new baseline (result
-- 'baseline': no change row, no unread count, no watch.changed), and the
-- mark goes. A real change between the last check before the upgrade and
-- the first after it is missed; that is the price of not announcing
-- thousands of false ones.
ALTER TABLE watches ADD COLUMN quiet_rebaseline boolean NOT NULL DEFAULT false;
UPDATE watches SET quiet_rebaseline = true WHERE content_hash IS NOT NULL;

-- The SHA-256 of the last full body every watch of the target extracted
-- from, stored only with the validators' rule (all watches stored content
-- from that body). A full body with the same hash is unchanged for every
-- watch: no parsing, extraction or diff, and a quiet write.
ALTER TABLE targets ADD COLUMN body_sha256 text;

-- record_changes of 0015, plus: a watch marked quiet_rebaseline takes its
-- new hash as a baseline, and the mark is cleared whatever the result.
CREATE OR REPLACE FUNCTION record_changes(
    watch_ids uuid[],
    new_hashes text[],
    new_snapshots text[],
    snapshots_truncated boolean[],
    change_diffs text[],
    http_statuses integer[],
    content_lengths bigint[]
) RETURNS TABLE (watch_id uuid, result text, change_id uuid)
LANGUAGE plpgsql AS $$
DECLARE
    locked_users uuid[];
    found_watches uuid[];
    found_results text[];
    found_changes uuid[];
    new_changes uuid[];
BEGIN
    SELECT coalesce(array_agg(DISTINCT w.user_id), '{}') INTO locked_users
    FROM (
        SELECT w.user_id FROM watches w
        WHERE w.id = ANY (watch_ids)
        ORDER BY w.id
        FOR UPDATE
    ) w;
    PERFORM 1 FROM badges b WHERE b.user_id = ANY (locked_users) ORDER BY b.user_id FOR UPDATE;

    WITH input AS (
        SELECT DISTINCT ON (i.watch_id) i.*
        FROM unnest(watch_ids, new_hashes, new_snapshots, snapshots_truncated, change_diffs, http_statuses, content_lengths)
             AS i(watch_id, new_hash, snapshot, truncated, diff, http_status, content_length)
        ORDER BY i.watch_id
    ), compared AS MATERIALIZED (
        SELECT w.id, w.user_id, w.content_hash, w.paused, w.quiet_rebaseline, i.new_hash, i.snapshot, i.truncated,
               i.diff, i.http_status, i.content_length,
               CASE WHEN w.content_hash IS NOT DISTINCT FROM i.new_hash THEN 'unchanged'
                    WHEN w.content_hash IS NULL OR w.quiet_rebaseline THEN 'baseline'
                    ELSE 'changed' END AS result
        FROM watches w JOIN input i ON i.watch_id = w.id
    ), updated AS (
        UPDATE watches w
        SET content_hash = p.new_hash,
            snapshot = p.snapshot,
            quiet_rebaseline = false,
            last_changed_at = CASE WHEN p.result = 'changed' AND NOT p.paused THEN now() ELSE w.last_changed_at END,
            updated_at = now()
        FROM compared p
        WHERE w.id = p.id AND (p.result <> 'unchanged' OR p.quiet_rebaseline)
    ), inserted AS (
        INSERT INTO changes (watch_id, user_id, previous_hash, new_hash, http_status, content_length,
                             snapshot, snapshot_truncated, diff)
        SELECT p.id, p.user_id, p.content_hash, p.new_hash, p.http_status, p.content_length,
               p.snapshot, p.truncated, p.diff
        FROM compared p
        WHERE p.result = 'changed' AND NOT p.paused
        RETURNING changes.id, changes.watch_id
    )
    SELECT array_agg(p.id ORDER BY p.id), array_agg(p.result ORDER BY p.id), array_agg(x.id ORDER BY p.id)
    INTO found_watches, found_results, found_changes
    FROM compared p LEFT JOIN inserted x ON x.watch_id = p.id;

    new_changes := array_remove(found_changes, NULL);
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
                'diff', c.diff
            ), NULL, NULL)::outbox_event ORDER BY c.watch_id)
            FROM changes c
            JOIN watches w ON w.id = c.watch_id
            JOIN targets t ON t.id = w.target_id
            JOIN badges b ON b.user_id = c.user_id
            WHERE c.id = ANY (new_changes)
        ));
    END IF;

    RETURN QUERY SELECT * FROM unnest(found_watches, found_results, found_changes);
END
$$;
