-- ISO 8601 in UTC with milliseconds, as the REST API prints times.
CREATE OR REPLACE FUNCTION iso8601(moment timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT to_char(moment AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
