-- Replicas cache verified API keys (see CredentialCache); every revocation
-- and every deleted key (also through a deleted user's cascade) is
-- announced on channel tidings_credentials so that all of them forget it
-- at once. The payload is the key id.
CREATE OR REPLACE FUNCTION api_keys_announce_revocation() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tidings_credentials', OLD.id::text);
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER api_keys_revoked AFTER UPDATE OF revoked_at ON api_keys
    FOR EACH ROW WHEN (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL)
    EXECUTE FUNCTION api_keys_announce_revocation();

CREATE OR REPLACE TRIGGER api_keys_deleted AFTER DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION api_keys_announce_revocation();
