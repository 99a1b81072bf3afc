-- Webhooks: signed HTTP callbacks for a user's events, or (global, owned by
-- no user) for every user's events, such as a push gateway. The signing
-- secrets are stored as issued because signing needs them; after a rotation
-- the previous secret keeps signing alongside the new one until it expires.
CREATE TABLE webhooks (
    id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id                     uuid REFERENCES users (id) ON DELETE CASCADE,
    global                      boolean NOT NULL DEFAULT false,
    url                         text NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2048 AND url ~* '^https?://'),
    event_types                 text[] NOT NULL CHECK (
                                    cardinality(event_types) > 0
                                    AND event_types <@ ARRAY['watch.changed', 'badge.updated', 'watch.failing', 'watch.recovered', 'webhook.disabled']
                                ),
    description                 text CHECK (char_length(description) BETWEEN 1 AND 500),
    secret                      text NOT NULL CHECK (secret LIKE 'whsec\_%'),
    previous_secret             text CHECK (previous_secret LIKE 'whsec\_%'),
    previous_secret_expires_at  timestamptz,
    disabled_at                 timestamptz,
    disabled_reason             text,
    created_at                  timestamptz NOT NULL DEFAULT now(),
    updated_at                  timestamptz NOT NULL DEFAULT now(),
    CHECK (global = (user_id IS NULL)),
    CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL)),
    CHECK ((disabled_at IS NULL) = (disabled_reason IS NULL))
);

-- Keyset pagination per owner; global webhooks are the NULL user_id group.
CREATE INDEX webhooks_user_created_idx ON webhooks (user_id, created_at, id);
