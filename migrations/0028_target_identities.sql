-- A target's identity key moves to a table of its own (decision 0035).
--
-- The poller rewrites a target's row after every check and moves its
-- next_check_at, which targets_due_keyset_idx covers, so every write adds
-- an entry to each index of targets. The identity key (url, headers,
-- version check: migration 0007) was the widest of them, and it never
-- changes after the insert except when secrets are rotated. Here it is
-- written only then.

CREATE TABLE target_identities (
    target_id uuid PRIMARY KEY REFERENCES targets (id) ON DELETE CASCADE,
    url text NOT NULL,
    headers_fingerprint text NOT NULL,
    version_url text,
    version_pointer text,
    CONSTRAINT target_identities_key UNIQUE NULLS NOT DISTINCT (url, headers_fingerprint, version_url, version_pointer)
);

INSERT INTO target_identities (target_id, url, headers_fingerprint, version_url, version_pointer)
SELECT id, url, headers_fingerprint, version_url, version_pointer FROM targets;

ALTER TABLE targets DROP CONSTRAINT targets_identity_key;

-- Every target has its identity row, whoever writes targets: a second
-- target with the same identity fails here as it did on the old key.
-- WatchStore.attachTarget inserts the identity first (ON CONFLICT DO
-- NOTHING decides which of two concurrent creators wins); the trigger then
-- finds it in place.
CREATE FUNCTION targets_keep_identity() RETURNS trigger
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

CREATE TRIGGER targets_keep_identity
AFTER INSERT OR UPDATE OF url, headers_fingerprint, version_url, version_pointer ON targets
FOR EACH ROW EXECUTE FUNCTION targets_keep_identity();
