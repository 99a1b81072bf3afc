-- A watch's fetch statistics are its own: the requests made for its target
-- since the watch joined it. Targets are shared by every watch of the same
-- URL and headers, whoever owns them, so each watch keeps the target's
-- totals as they were when it was inserted and shows the difference.
CREATE OR REPLACE FUNCTION watches_statistics_base() RETURNS trigger
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

CREATE OR REPLACE TRIGGER watches_statistics_base_on_insert
    BEFORE INSERT ON watches
    FOR EACH ROW EXECUTE FUNCTION watches_statistics_base();
