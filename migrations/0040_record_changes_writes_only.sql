-- record_changes no longer locks the watches or decides which content is a
-- change: the poller's eventful write locks them once and decides, from the
-- rows it locked (decision 0049). Its new text, with the result of each
-- watch as an argument, is schema/functions/record_changes.sql.
DROP FUNCTION record_changes(uuid[], text[], text[], boolean[], text[], integer[], bigint[]);
