-- The 30-day prune of the outbox finds old events by their id (evt_ ids are ULIDs: their first ten
-- characters are the creation time), so the index on created_at is no longer read. Every event wrote
-- it: one index entry fewer per event (docs/performance.md, round twenty).
DROP INDEX IF EXISTS "events_created_idx";
