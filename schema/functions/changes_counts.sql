-- changes -> watches.unread_count, one UPDATE per statement, by three
-- statement triggers on changes.
CREATE OR REPLACE FUNCTION changes_count_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM watches WHERE id IN (SELECT watch_id FROM inserted) ORDER BY id FOR UPDATE;
    UPDATE watches w
    SET unread_count = w.unread_count + added.unread
    FROM (SELECT watch_id, count(*) AS unread FROM inserted WHERE read_at IS NULL GROUP BY watch_id) added
    WHERE w.id = added.watch_id;
    RETURN NULL;
END
$$;

-- Statement triggers fire for zero rows too; the early returns keep an
-- UPDATE that changes nothing relevant from cascading (and from recursing
-- between changes and watches).
CREATE OR REPLACE FUNCTION changes_count_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE (n.read_at IS NULL) <> (o.read_at IS NULL)
    ) THEN
        RETURN NULL;
    END IF;
    PERFORM 1 FROM watches WHERE id IN (SELECT watch_id FROM new_rows) ORDER BY id FOR UPDATE;
    UPDATE watches w
    SET unread_count = w.unread_count + delta.unread
    FROM (
        SELECT n.watch_id,
               sum((n.read_at IS NULL)::integer - (o.read_at IS NULL)::integer) AS unread
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        GROUP BY n.watch_id
    ) delta
    WHERE w.id = delta.watch_id AND delta.unread <> 0;
    RETURN NULL;
END
$$;

CREATE OR REPLACE FUNCTION changes_count_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE watches w
    SET unread_count = w.unread_count - removed.unread
    FROM (SELECT watch_id, count(*) AS unread FROM old_rows WHERE read_at IS NULL GROUP BY watch_id) removed
    WHERE w.id = removed.watch_id;
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER changes_count_inserted AFTER INSERT ON changes
    REFERENCING NEW TABLE AS inserted
    FOR EACH STATEMENT EXECUTE FUNCTION changes_count_inserted();
CREATE OR REPLACE TRIGGER changes_count_updated AFTER UPDATE ON changes
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION changes_count_updated();
CREATE OR REPLACE TRIGGER changes_count_deleted AFTER DELETE ON changes
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION changes_count_deleted();
