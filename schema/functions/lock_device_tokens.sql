-- Registrations and edits of one token take turns: they hold this advisory
-- lock ("devt", hashtext of the token) until they commit, so two users
-- registering a token at once end with one device, the later one's.
-- Taken in key order, so that batches naming several tokens cannot
-- deadlock; every caller takes them before any row lock on devices.
CREATE OR REPLACE FUNCTION lock_device_tokens(tokens text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    token_key integer;
BEGIN
    FOR token_key IN SELECT DISTINCT hashtext(t) FROM unnest(tokens) AS t ORDER BY 1 LOOP
        PERFORM pg_advisory_xact_lock(1684371060, token_key);
    END LOOP;
END
$$;
