-- targets.headers_fingerprint is 64 lower-case hex digits (an HMAC-SHA256,
-- migration 0017). A trigger on the writes that set it, rather than a CHECK
-- constraint evaluated on every update (migration 0043): the poller writes
-- every target at each check and never this column.
CREATE OR REPLACE FUNCTION targets_check_fingerprint() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.headers_fingerprint !~ '^[0-9a-f]{64}$' THEN
        RAISE EXCEPTION 'new row for relation "targets" violates check constraint "targets_headers_fingerprint_check"'
            USING ERRCODE = 'check_violation', CONSTRAINT = 'targets_headers_fingerprint_check',
                  TABLE = 'targets', COLUMN = 'headers_fingerprint';
    END IF;
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER targets_check_fingerprint
BEFORE INSERT OR UPDATE OF headers_fingerprint ON targets
FOR EACH ROW EXECUTE FUNCTION targets_check_fingerprint();
