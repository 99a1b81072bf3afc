-- A watch's fetch statistics are its own: the requests made for its target
-- since the watch joined that target. Targets are shared by every watch of
-- the same URL and headers, whoever owns them, so the target's running
-- totals told a new watch whether another tenant already watched the same
-- thing. Each watch keeps the totals as they were when it joined (on
-- insert, and when an edit moves it to another target); it shows the
-- difference. Existing watches start counting at this migration.
ALTER TABLE watches
    ADD COLUMN statistics_base_requests       bigint NOT NULL DEFAULT 0,
    ADD COLUMN statistics_base_not_modified   bigint NOT NULL DEFAULT 0,
    ADD COLUMN statistics_base_bytes_received bigint NOT NULL DEFAULT 0,
    ADD COLUMN statistics_base_bytes_saved    bigint NOT NULL DEFAULT 0;

CREATE FUNCTION watches_statistics_base() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    SELECT t.request_count, t.not_modified_count, t.bytes_received, t.bytes_saved
    INTO NEW.statistics_base_requests, NEW.statistics_base_not_modified,
         NEW.statistics_base_bytes_received, NEW.statistics_base_bytes_saved
    FROM targets t
    WHERE t.id = NEW.target_id;
    RETURN NEW;
END
$$;

CREATE TRIGGER watches_statistics_base_on_insert
    BEFORE INSERT ON watches
    FOR EACH ROW EXECUTE FUNCTION watches_statistics_base();

CREATE TRIGGER watches_statistics_base_on_move
    BEFORE UPDATE OF target_id ON watches
    FOR EACH ROW WHEN (OLD.target_id IS DISTINCT FROM NEW.target_id)
    EXECUTE FUNCTION watches_statistics_base();

UPDATE watches w
SET statistics_base_requests = t.request_count,
    statistics_base_not_modified = t.not_modified_count,
    statistics_base_bytes_received = t.bytes_received,
    statistics_base_bytes_saved = t.bytes_saved
FROM targets t
WHERE t.id = w.target_id;
