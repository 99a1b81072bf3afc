-- Every target has its identity row, whoever writes targets: a second
-- target with the same identity fails here as it did on the old key.
-- WatchStore.attachTarget inserts the identity first (ON CONFLICT DO
-- NOTHING decides which of two concurrent creators wins); the trigger then
-- finds it in place.
CREATE OR REPLACE FUNCTION targets_keep_identity() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO target_identities (target_id, url, headers_fingerprint, version_url, version_pointer)
    VALUES (NEW.id, NEW.url, NEW.headers_fingerprint, NEW.version_url, NEW.version_pointer)
    ON CONFLICT (target_id) DO UPDATE
    SET url = EXCLUDED.url, headers_fingerprint = EXCLUDED.headers_fingerprint,
        version_url = EXCLUDED.version_url, version_pointer = EXCLUDED.version_pointer
    WHERE (target_identities.url, target_identities.headers_fingerprint, target_identities.version_url, target_identities.version_pointer)
        IS DISTINCT FROM (EXCLUDED.url, EXCLUDED.headers_fingerprint, EXCLUDED.version_url, EXCLUDED.version_pointer);
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER targets_keep_identity
AFTER INSERT OR UPDATE OF url, headers_fingerprint, version_url, version_pointer ON targets
FOR EACH ROW EXECUTE FUNCTION targets_keep_identity();
