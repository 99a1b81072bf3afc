-- Every change of a badge's count is announced as badge.updated, once per
-- statement for every badge it changed, except while the user itself is
-- being deleted (its watches cascade away with it; nobody is left to tell).
CREATE OR REPLACE FUNCTION badges_announce() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM queue_events((
        SELECT array_agg(ROW(
            n.user_id, 'badge.updated', badge_event_data(n.user_id, n.count, n.sequence, n.updated_at), NULL, NULL
        )::outbox_event)
        FROM new_rows n JOIN old_rows o ON o.user_id = n.user_id
        WHERE n.count <> o.count AND EXISTS (SELECT 1 FROM users u WHERE u.id = n.user_id)
    ));
    RETURN NULL;
END
$$;

CREATE OR REPLACE TRIGGER badges_announce AFTER UPDATE ON badges
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION badges_announce();
