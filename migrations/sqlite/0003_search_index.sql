-- Substring search and cheap totals for large waitlists (SQLite only; hand-written because drizzle
-- cannot model virtual tables or triggers). Everything here is kept in step with `entries` by the
-- triggers below, inside the same transaction as the write.
--
-- entries_search: one narrow row per LIVE entry (rid = entries.rowid, project, email, name). Scanning
--   it is ~6x cheaper than scanning `entries` (1-2 character needles use LIKE on it), and it filters
--   FTS matches by project without touching the wide entry rows.
-- entries_fts: FTS5 trigram index over entries_search (external content), case-insensitive with
--   Unicode case folding; queried with a quoted MATCH phrase for needles of 3+ characters.
-- entry_counts (created in 0002): live entries per project, for the unfiltered list total.
-- search_state 'rowid_order' = 1 while entries.rowid order equals entries.id order (true when
--   entries are appended with growing ids, as one server does); search pages then walk rowids
--   newest-first and stop early. It drops to 0 for good the first time an insert breaks it, and
--   searches fall back to sorting by id.
CREATE TABLE `entries_search` (
	`rid` integer PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text
);
--> statement-breakpoint
CREATE TABLE `search_state` (
	`k` text PRIMARY KEY NOT NULL,
	`v` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO search_state(k, v) VALUES ('rowid_order', 1);
--> statement-breakpoint
CREATE VIRTUAL TABLE `entries_fts` USING fts5(email, name, content='entries_search', content_rowid='rid', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `entries_live_ai` AFTER INSERT ON `entries` WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO entries_search(rid, project_id, email, name) VALUES (new.rowid, new.project_id, new.email, new.name);
  INSERT INTO entries_fts(rowid, email, name) VALUES (new.rowid, new.email, new.name);
  INSERT INTO entry_counts(project_id, live) VALUES (new.project_id, 1)
    ON CONFLICT(project_id) DO UPDATE SET live = live + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_order_ai` AFTER INSERT ON `entries`
WHEN new.id <> (SELECT max(id) FROM entries) OR new.rowid <> (SELECT max(rowid) FROM entries) BEGIN
  UPDATE search_state SET v = 0 WHERE k = 'rowid_order';
END;
--> statement-breakpoint
CREATE TRIGGER `entries_live_ad` AFTER DELETE ON `entries` WHEN old.deleted_at IS NULL BEGIN
  DELETE FROM entries_search WHERE rid = old.rowid;
  INSERT INTO entries_fts(entries_fts, rowid, email, name) VALUES ('delete', old.rowid, old.email, old.name);
  UPDATE entry_counts SET live = live - 1 WHERE project_id = old.project_id;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_live_au` AFTER UPDATE OF email, name, deleted_at, project_id ON `entries` BEGIN
  DELETE FROM entries_search WHERE rid = old.rowid AND old.deleted_at IS NULL;
  INSERT INTO entries_fts(entries_fts, rowid, email, name)
    SELECT 'delete', old.rowid, old.email, old.name WHERE old.deleted_at IS NULL;
  UPDATE entry_counts SET live = live - 1 WHERE project_id = old.project_id AND old.deleted_at IS NULL;
  INSERT INTO entries_search(rid, project_id, email, name)
    SELECT new.rowid, new.project_id, new.email, new.name WHERE new.deleted_at IS NULL;
  INSERT INTO entries_fts(rowid, email, name)
    SELECT new.rowid, new.email, new.name WHERE new.deleted_at IS NULL;
  INSERT INTO entry_counts(project_id, live)
    SELECT new.project_id, 1 WHERE new.deleted_at IS NULL
    ON CONFLICT(project_id) DO UPDATE SET live = live + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `projects_counts_ad` AFTER DELETE ON `projects` BEGIN
  DELETE FROM entry_counts WHERE project_id = old.id;
END;
--> statement-breakpoint
INSERT INTO entries_search(rid, project_id, email, name)
  SELECT rowid, project_id, email, name FROM entries WHERE deleted_at IS NULL;
--> statement-breakpoint
INSERT INTO entries_fts(entries_fts) VALUES ('rebuild');
--> statement-breakpoint
INSERT INTO entry_counts(project_id, live)
  SELECT project_id, count(*) FROM entries WHERE deleted_at IS NULL GROUP BY project_id;
--> statement-breakpoint
UPDATE search_state SET v = 0 WHERE k = 'rowid_order' AND EXISTS (
  SELECT 1 FROM (SELECT id, lag(id) OVER (ORDER BY rowid) AS prev FROM entries) WHERE prev > id
);
