-- Every user has a badge from the moment it exists.
CREATE OR REPLACE FUNCTION create_badge_for_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO badges (user_id) VALUES (NEW.id);
    RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER users_create_badge
    AFTER INSERT ON users
    FOR EACH ROW EXECUTE FUNCTION create_badge_for_user();
