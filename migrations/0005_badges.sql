-- One badge per user: the unread total every device of the user shows, and
-- a sequence that grows with every change of it so receivers can drop stale
-- updates. Kept as a row (not summed on read) so that changes of the count
-- and the events announcing them can be written in one transaction.
CREATE TABLE badges (
    user_id     uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    count       bigint NOT NULL DEFAULT 0 CHECK (count >= 0),
    sequence    bigint NOT NULL DEFAULT 0 CHECK (sequence >= 0),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

INSERT INTO badges (user_id) SELECT id FROM users;

-- Every user has a badge from the moment it exists.
CREATE FUNCTION create_badge_for_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO badges (user_id) VALUES (NEW.id);
    RETURN NEW;
END;
$$;

CREATE TRIGGER users_create_badge
    AFTER INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION create_badge_for_user();
