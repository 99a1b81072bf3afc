-- A held target's hold ends on any write but its holder's result write,
-- not only when its next check moves earlier or its interval changes
-- (decision 0062): the trigger that did the narrower thing goes, and
-- schema/functions/targets_end_hold_on_outside_write.sql takes its place.
DROP TRIGGER IF EXISTS targets_end_hold_on_reschedule ON targets;
DROP FUNCTION IF EXISTS targets_end_hold_on_reschedule();
