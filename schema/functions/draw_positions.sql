-- Draws `n` positions of each user's order; returns each user's first.
-- The caller holds, or here takes, the badge rows in user order (the lock
-- order every writer keeps: watches by id, then badges by user).
CREATE OR REPLACE FUNCTION draw_positions(users uuid[], counts bigint[])
RETURNS TABLE (user_id uuid, first_position bigint)
LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(cardinality(users), 0) = 0 THEN
        RETURN;
    END IF;
    PERFORM 1 FROM badges b WHERE b.user_id = ANY (users) ORDER BY b.user_id FOR UPDATE;
    RETURN QUERY
    WITH advanced AS (
        UPDATE badges b SET last_position = b.last_position + x.n
        FROM unnest(users, counts) AS x(user_id, n)
        WHERE b.user_id = x.user_id AND x.n > 0
        RETURNING b.user_id, b.last_position - x.n + 1 AS first_position
    )
    SELECT a.user_id, a.first_position FROM advanced a;
END
$$;
