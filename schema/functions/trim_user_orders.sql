-- Raises each user's trimmed_through to the highest of its positions
-- that retention deleted (parallel arrays, a user may repeat), locking the
-- badges in user order. Returns nothing useful; called as an expression.
CREATE OR REPLACE FUNCTION trim_user_orders(users uuid[], positions bigint[]) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(cardinality(users), 0) = 0 THEN
        RETURN;
    END IF;
    PERFORM 1 FROM badges b WHERE b.user_id = ANY (users) ORDER BY b.user_id FOR UPDATE;
    UPDATE badges b SET trimmed_through = greatest(b.trimmed_through, t.through)
    FROM (SELECT x.user_id, max(x.position) AS through FROM unnest(users, positions) AS x(user_id, position) GROUP BY x.user_id) t
    WHERE b.user_id = t.user_id AND t.through > b.trimmed_through;
END
$$;
