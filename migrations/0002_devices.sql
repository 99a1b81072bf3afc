-- Devices: where a user's badges are pushed. A push token names one app
-- install to its push gateway, so a user has each token at most once;
-- registering it again updates that device instead of adding another.
CREATE TABLE devices (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    platform      text NOT NULL CHECK (platform IN ('ios', 'android', 'web')),
    push_token    text NOT NULL CHECK (char_length(push_token) BETWEEN 1 AND 4096),
    app_id        text CHECK (char_length(app_id) BETWEEN 1 AND 255),
    name          text CHECK (char_length(name) BETWEEN 1 AND 200),
    locale        text CHECK (locale ~ '^[A-Za-z0-9_-]{2,35}$'),
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

-- Keyed by md5 of the token rather than the token itself: a B-tree entry is
-- capped near 2.7 kB and tokens may be up to 4 kB (web push endpoints). The
-- digest is only an index key; lookups also compare the token itself.
CREATE UNIQUE INDEX devices_user_push_token_key ON devices (user_id, md5(push_token));

-- Keyset pagination of one user's devices in creation order.
CREATE INDEX devices_user_created_idx ON devices (user_id, created_at, id);
