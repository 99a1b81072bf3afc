-- watches -> badges.count, one UPDATE per user per statement, so a
-- read-all over many watches is one change of the badge and one event.
-- Pausing a watch reads its changes: a paused watch counts for nothing.
--
-- The trigger runs after every UPDATE of watches: the poller's writes of
-- check results and content, reads, pauses. Transition tables carry no
-- statistics, and joining new_rows to old_rows on id cost 82 µs per
-- updated row (pg_stat_statements, bench/poller.sh all-304 rounds) when no
-- count had changed at all (migration 0026). Moved counts are found by a
-- set difference (hashed, no join), the
-- per-user deltas by one aggregate over both tables (a watch's user never
-- changes), and the pause rule first looks for a paused watch with unread
-- changes in new_rows alone, which only a pause itself leaves.
CREATE OR REPLACE FUNCTION watches_count_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    -- Only when a count moved: an UPDATE of badges, even of no row, would
    -- run its statement trigger (badges_announce).
    IF EXISTS (
        SELECT 1 FROM (SELECT id, unread_count FROM new_rows
                       EXCEPT ALL
                       SELECT id, unread_count FROM old_rows) AS moved
    ) THEN
        UPDATE badges b
        SET count = b.count + delta.unread
        FROM (
            SELECT user_id, sum(unread) AS unread
            FROM (SELECT user_id, unread_count AS unread FROM new_rows
                  UNION ALL
                  SELECT user_id, -unread_count FROM old_rows) AS counts
            GROUP BY user_id
            HAVING sum(unread) <> 0
        ) delta
        WHERE b.user_id = delta.user_id;
    END IF;

    IF EXISTS (SELECT 1 FROM new_rows WHERE paused AND unread_count > 0) THEN
        UPDATE changes c
        SET read_at = now()
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.paused AND NOT o.paused AND c.watch_id = n.id AND c.read_at IS NULL;
    END IF;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION watches_count_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE badges b
    SET count = b.count - removed.unread
    FROM (SELECT user_id, sum(unread_count) AS unread FROM old_rows GROUP BY user_id) removed
    WHERE b.user_id = removed.user_id AND removed.unread <> 0;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER watches_count_updated AFTER UPDATE ON watches
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION watches_count_updated();
CREATE OR REPLACE TRIGGER watches_count_deleted AFTER DELETE ON watches
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION watches_count_deleted();
