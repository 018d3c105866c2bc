-- The 30-day prune of the outbox finds old events by their id (evt_ ids are ULIDs: their first ten
-- characters are the creation time), so the index on created_at is no longer read. Every event (a
-- join's entry.created when a webhook subscribes) wrote it: one index entry fewer per such join
-- (docs/performance.md, round twenty).
DROP INDEX IF EXISTS `events_created_idx`;
