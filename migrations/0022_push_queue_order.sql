-- The order in which a device's badge and sync pushes were queued, so the
-- dispatcher never sends an older one after a newer one.
--
-- A push queued while an older one of the same kind was in flight is a
-- second pending row (the in-flight one cannot take the new value). If the
-- older attempt then failed, its completion could miss the newer row (not
-- yet committed) and leave both pending: the older count went out again
-- after the newer one. created_at cannot order them (it is the queuing
-- transaction's start, not when it took the user's badge row lock); a
-- sequence value drawn at insert time can.
ALTER TABLE pushes ADD COLUMN queued_seq bigint GENERATED ALWAYS AS IDENTITY;

-- "Is there a newer push of this kind for this device?", asked by the
-- dispatcher's claim and completion for every badge and sync push.
CREATE INDEX pushes_device_order_idx ON pushes (device_id, kind, queued_seq);
