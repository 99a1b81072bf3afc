-- The poller's bookkeeping on targets.
--
-- A version endpoint decides whether the page is fetched at all, so it is a
-- decision about the fetch, not about one watch's comparison: it becomes
-- part of a target's identity (URL + headers + version check). Watches of
-- one URL that agree on the version endpoint (the normal case) still share
-- one target; a watch with a different endpoint gets its own, instead of a
-- target having to choose between its watches' endpoints.
ALTER TABLE targets
    ADD COLUMN version_url text CHECK (char_length(version_url) BETWEEN 1 AND 2048),
    ADD COLUMN version_pointer text CHECK (char_length(version_pointer) <= 1000),
    -- The version endpoint's value when the page was last fetched in full.
    ADD COLUMN last_version text,
    -- Checks since the last unconditional full fetch (every Nth is one).
    ADD COLUMN checks_since_full integer NOT NULL DEFAULT 0 CHECK (checks_since_full >= 0),
    -- Wire size (headers and body) of the last full response: what a 304
    -- or an unchanged version saved.
    ADD COLUMN last_body_size bigint CHECK (last_body_size >= 0),
    ADD COLUMN bytes_saved bigint NOT NULL DEFAULT 0 CHECK (bytes_saved >= 0),
    ADD CONSTRAINT targets_version_pair CHECK ((version_url IS NULL) = (version_pointer IS NULL));

ALTER TABLE targets DROP CONSTRAINT targets_url_headers_key;
ALTER TABLE targets ADD CONSTRAINT targets_identity_key
    UNIQUE NULLS NOT DISTINCT (url, headers_fingerprint, version_url, version_pointer);

-- Existing watches with a version endpoint move to the target for their
-- URL, headers and endpoint; the sync trigger (0003) sets the new targets'
-- intervals and deletes targets left without watches.
INSERT INTO targets (url, headers, headers_fingerprint, version_url, version_pointer)
SELECT DISTINCT t.url, t.headers, t.headers_fingerprint, w.version_url, w.version_pointer
FROM watches w JOIN targets t ON t.id = w.target_id
WHERE w.version_url IS NOT NULL
ON CONFLICT ON CONSTRAINT targets_identity_key DO NOTHING;

UPDATE watches w
SET target_id = n.id
FROM targets t, targets n
WHERE w.target_id = t.id
  AND w.version_url IS NOT NULL
  AND n.url = t.url
  AND n.headers_fingerprint = t.headers_fingerprint
  AND n.version_url = w.version_url
  AND n.version_pointer = w.version_pointer;

ALTER TABLE watches DROP COLUMN version_url, DROP COLUMN version_pointer, DROP COLUMN last_version;

-- No index on lease_owner: nothing looks targets up by owner (claims move
-- next_check_at to the lease's end, so the due index skips leased targets,
-- and results are written by primary key), and every claim and result would
-- pay for one.
