-- A row inserted without a maximum (a statement that predates it) gets
-- its interval, the default that changes nothing.
CREATE OR REPLACE FUNCTION watches_default_max_interval() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.max_interval_seconds := coalesce(NEW.max_interval_seconds, NEW.interval_seconds);
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER watches_default_max_interval
BEFORE INSERT ON watches
FOR EACH ROW EXECUTE FUNCTION watches_default_max_interval();
