-- Stream tokens (issue 29): a browser's EventSource cannot send an
-- Authorization header, so POST /v1/events/tokens gives a token for
-- ?token= that opens one stream within 60 s. Only its SHA-256 is stored
-- (as for API keys); opening the stream deletes the row, so a token
-- works once, on whichever replica the stream reaches.
CREATE TABLE stream_tokens (
    token_hash  bytea PRIMARY KEY CHECK (octet_length(token_hash) = 32),
    user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at  timestamptz NOT NULL
);
-- Expired tokens nobody used are swept by expiry.
CREATE INDEX stream_tokens_expires_idx ON stream_tokens (expires_at);
