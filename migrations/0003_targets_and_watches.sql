-- Fetch once, fan out: a target is one distinct thing to fetch (normalized
-- URL plus request headers); every watch of that URL with the same headers,
-- whoever owns it, shares the target and so costs one request per interval.
--
-- Header values are secrets (e.g. Authorization) needed to fetch: they live
-- here as a JSON object of lower-case name -> value, and the API only ever
-- reads their names. The unique key uses a SHA-256 of the canonical header
-- list so the values need no index.
CREATE TABLE targets (
    id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    url                   text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048),
    headers               jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(headers) = 'object'),
    headers_fingerprint   text NOT NULL CHECK (headers_fingerprint ~ '^[0-9a-f]{64}$'),
    -- The shortest interval among the target's unpaused watches; NULL when
    -- every watch is paused, so the target is not scheduled. Kept by the
    -- trigger below.
    interval_seconds      integer CHECK (interval_seconds > 0),
    next_check_at         timestamptz NOT NULL DEFAULT now(),
    -- Validators of the last full response, for conditional requests.
    etag                  text,
    last_modified         text,
    -- Which poller replica holds the target, and until when (a crashed
    -- replica's lease expires and another takes over).
    lease_owner           text,
    lease_until           timestamptz,
    last_checked_at       timestamptz,
    last_status           integer,
    last_error            text,
    consecutive_failures  integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    request_count         bigint NOT NULL DEFAULT 0 CHECK (request_count >= 0),
    not_modified_count    bigint NOT NULL DEFAULT 0 CHECK (not_modified_count >= 0),
    bytes_received        bigint NOT NULL DEFAULT 0 CHECK (bytes_received >= 0),
    created_at            timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT targets_url_headers_key UNIQUE (url, headers_fingerprint),
    CHECK ((lease_owner IS NULL) = (lease_until IS NULL))
);

-- The poller claims due, scheduled targets in next_check_at order.
CREATE INDEX targets_due_idx ON targets (next_check_at) WHERE interval_seconds IS NOT NULL;

-- A user's subscription to a target, with its own extraction rule, content
-- hash and unread count.
CREATE TABLE watches (
    id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id               uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    target_id             uuid NOT NULL REFERENCES targets (id) ON DELETE RESTRICT,
    name                  text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    interval_seconds      integer NOT NULL CHECK (interval_seconds > 0),
    version_url           text CHECK (char_length(version_url) BETWEEN 1 AND 2048),
    version_pointer       text CHECK (char_length(version_pointer) <= 1000),
    -- {"css"|"xpath"|"json_pointer": "...", "ignore": ["regex", ...]}; NULL: whole body.
    extract               jsonb CHECK (jsonb_typeof(extract) = 'object'),
    paused                boolean NOT NULL DEFAULT false,
    state                 text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'ok', 'failing')),
    last_checked_at       timestamptz,
    last_check_result     text CHECK (last_check_result IN
                              ('baseline', 'changed', 'unchanged', 'not_modified', 'version_unchanged', 'failed')),
    last_changed_at       timestamptz,
    -- The version endpoint's last value, compared before the page is fetched.
    last_version          text,
    content_hash          text CHECK (content_hash ~ '^[0-9a-f]{64}$'),
    unread_count          integer NOT NULL DEFAULT 0 CHECK (unread_count >= 0),
    consecutive_failures  integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
    last_error            text,
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now(),
    CHECK ((version_url IS NULL) = (version_pointer IS NULL))
);

CREATE INDEX watches_user_created_idx ON watches (user_id, created_at, id);
CREATE INDEX watches_target_id_idx ON watches (target_id);

-- Keeps a target consistent with its watches after any change, including
-- the cascade when a user is deleted: a target without watches is deleted,
-- otherwise its interval becomes the shortest among its unpaused watches.
-- The target row is locked first so that the statements after it (each
-- with a fresh snapshot under READ COMMITTED) see every watch committed by
-- a transaction that was attaching itself to the same target.
CREATE FUNCTION sync_target_with_watches(target uuid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    shortest integer;
BEGIN
    PERFORM 1 FROM targets WHERE id = target FOR UPDATE;
    IF NOT EXISTS (SELECT 1 FROM watches WHERE target_id = target) THEN
        DELETE FROM targets WHERE id = target;
        RETURN;
    END IF;
    SELECT min(interval_seconds) INTO shortest FROM watches WHERE target_id = target AND NOT paused;
    UPDATE targets
    SET interval_seconds = shortest,
        -- A shorter interval takes effect now, not after the longer one ends.
        next_check_at = least(next_check_at, coalesce(last_checked_at, now()) + make_interval(secs => shortest))
    WHERE id = target AND interval_seconds IS DISTINCT FROM shortest;
END
$$;

CREATE FUNCTION watches_sync_targets() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM sync_target_with_watches(NEW.target_id);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM sync_target_with_watches(OLD.target_id);
    ELSE
        PERFORM sync_target_with_watches(OLD.target_id);
        IF NEW.target_id <> OLD.target_id THEN
            PERFORM sync_target_with_watches(NEW.target_id);
        END IF;
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER watches_sync_targets
AFTER INSERT OR DELETE OR UPDATE OF target_id, interval_seconds, paused ON watches
FOR EACH ROW EXECUTE FUNCTION watches_sync_targets();
