-- Secrets encrypted at rest (docs/decisions/0021-secrets-at-rest.md).
--
-- Webhook signing secrets and watch header values are sealed by Tidings with
-- AES-256-GCM under TIDINGS_SECRET_KEY before they are written, as text of
-- the form enc:v1:<key id>:<base64 nonce|ciphertext|tag>. SQL cannot seal
-- (the key never reaches the database), so this migration only makes room:
-- rows written before it stay plain until the next start of Tidings seals
-- them (SecretRotationStore, after migrations), which is why plain values
-- are still allowed by the checks below.

-- Webhook secrets: whsec_... (plain, from before) or a sealed value.
ALTER TABLE webhooks DROP CONSTRAINT webhooks_secret_check;
ALTER TABLE webhooks DROP CONSTRAINT webhooks_previous_secret_check;
ALTER TABLE webhooks ADD CONSTRAINT webhooks_secret_check
    CHECK (secret LIKE 'whsec\_%' OR secret LIKE 'enc:v1:%');
ALTER TABLE webhooks ADD CONSTRAINT webhooks_previous_secret_check
    CHECK (previous_secret LIKE 'whsec\_%' OR previous_secret LIKE 'enc:v1:%');

-- Targets: headers keeps its shape (lower-case name -> value, so the API
-- still lists names without opening anything), each value sealed with its
-- header name as context. headers_fingerprint becomes an HMAC-SHA256 under
-- a key of its own (sealed_keys below) instead of a plain SHA-256 of the
-- values, which a dump would let anyone test guesses of a short token
-- against. false: headers plain and fingerprint the old SHA-256 (a row
-- from before this migration, or from a replica not yet upgraded).
ALTER TABLE targets ADD COLUMN secrets_sealed boolean NOT NULL DEFAULT false;

-- Finding the rows still to seal at start-up reads this, not the table.
CREATE INDEX targets_unsealed_idx ON targets (id) WHERE NOT secrets_sealed;

-- Keys Tidings generates for itself and keeps in the database, sealed under
-- TIDINGS_SECRET_KEY like any secret: today only 'headers_fingerprint', the
-- HMAC key of targets.headers_fingerprint. Kept here rather than derived
-- from TIDINGS_SECRET_KEY so that a key rotation re-seals one row instead of
-- changing every fingerprint (and so every target's identity).
CREATE TABLE sealed_keys (
    purpose     text PRIMARY KEY CHECK (purpose ~ '^[a-z_]{1,64}$'),
    sealed      text NOT NULL CHECK (sealed LIKE 'enc:v1:%'),
    created_at  timestamptz NOT NULL DEFAULT now()
);
