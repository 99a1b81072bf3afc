-- Tenancy: every other row in Tidings belongs to a user, and users reach the
-- API with bearer keys. Only a SHA-256 of each key is stored; the short
-- public prefix finds the row without a scan.
CREATE TABLE users (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    prefix        text NOT NULL UNIQUE,
    key_hash      bytea NOT NULL CHECK (octet_length(key_hash) = 32),
    name          text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at  timestamptz,
    revoked_at    timestamptz
);

CREATE INDEX api_keys_user_id_idx ON api_keys (user_id);
