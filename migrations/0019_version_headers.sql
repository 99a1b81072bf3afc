-- The version endpoint's own request headers (issue 14): often another
-- credential than the page's, sent only to the version URL's origin.
-- Lower-case name -> value sealed like targets.headers (context
-- targets.version_headers.<name>; secrets_sealed covers both columns).
--
-- They are part of the target's identity: headers_fingerprint is the keyed
-- hash of both header sets (StoredSecrets.fingerprint), and stays what it
-- was for every target without version headers, which is every target
-- before this migration. So the identity key of migration 0007 needs no
-- change, and no existing target moves.
ALTER TABLE targets
    ADD COLUMN version_headers jsonb NOT NULL DEFAULT '{}'
        CHECK (jsonb_typeof(version_headers) = 'object'),
    ADD CONSTRAINT targets_version_headers_need_version_url
        CHECK (version_url IS NOT NULL OR version_headers = '{}'::jsonb);
