-- Every change of a badge's count moves its sequence by one and is
-- announced as badge.updated, except while the user itself is being
-- deleted (its watches cascade away with it; nobody is left to tell).
-- badge.updated is absolute, so a pending delivery of an older badge that
-- no dispatcher holds takes the new event instead of a second delivery
-- being queued, and a new badge delivery waits the coalescing window.
CREATE OR REPLACE FUNCTION badges_advance_sequence() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.sequence := OLD.sequence + 1;
    NEW.updated_at := now();
    RETURN NEW;
END
$$;

CREATE OR REPLACE TRIGGER badges_advance_sequence BEFORE UPDATE OF count ON badges
    FOR EACH ROW WHEN (NEW.count IS DISTINCT FROM OLD.count)
    EXECUTE FUNCTION badges_advance_sequence();
