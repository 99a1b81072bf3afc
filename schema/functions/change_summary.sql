-- The first added line of a unified diff, for an alert's body.
CREATE OR REPLACE FUNCTION change_summary(diff text) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(
        nullif(left(btrim(substring(coalesce(diff, '') FROM '(?:^|\n)\+(?!\+\+ )([^\n]*)')), 178), ''),
        'The content changed.'
    )
$$;
