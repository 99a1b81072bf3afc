-- The reason device.invalidated gives for a token that moved.
CREATE OR REPLACE FUNCTION device_token_moved_reason() RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT 'push token registered by another user' $$;
