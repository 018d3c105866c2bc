-- Search keyed by project (issue 15): a common trigram matched every project's rows, and the total
-- then checked each match against the project (~1.4 µs a match: 47 ms for 33k matches at 1M entries).
-- Now each project has a small number `n` (search_projects) and a search row's key is
-- sk = (n << 40) + entries.rowid, so one project's rows are one contiguous key range in both
-- entries_search and the FTS index: a search counts and pages with `rowid BETWEEN lo AND hi` and
-- never looks at another project's rows. Within a project, key order is still entries.rowid order
-- (search_state keeps its meaning). entries.rowid stays below 2^40 and n below 2^23.
--
-- search_projects: n for every project, given by a trigger when the project is created and never
--   reused (rows are not deleted: a deleted project's entries are deleted after it, and their
--   triggers still need n).
-- entries_search: one narrow row per LIVE entry (sk, email, name): the content of entries_fts, and
--   the table 1-2 character needles scan with LIKE (now only the project's own key range).
-- entries_fts: FTS5 trigram index over entries_search (external content, rowid = sk).
-- The triggers are those of 0003_search_index.sql with sk for rid; entry_counts is unchanged.
CREATE TABLE `search_projects` (
	`n` integer PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL UNIQUE
);
--> statement-breakpoint
INSERT INTO search_projects(project_id) SELECT id FROM projects ORDER BY rowid;
--> statement-breakpoint
CREATE TRIGGER `projects_search_ai` AFTER INSERT ON `projects` BEGIN
  INSERT INTO search_projects(project_id) VALUES (new.id) ON CONFLICT(project_id) DO NOTHING;
END;
--> statement-breakpoint
DROP TRIGGER `entries_live_ai`;
--> statement-breakpoint
DROP TRIGGER `entries_live_ad`;
--> statement-breakpoint
DROP TRIGGER `entries_live_au`;
--> statement-breakpoint
DROP TABLE `entries_fts`;
--> statement-breakpoint
DROP TABLE `entries_search`;
--> statement-breakpoint
CREATE TABLE `entries_search` (
	`sk` integer PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text
);
--> statement-breakpoint
CREATE VIRTUAL TABLE `entries_fts` USING fts5(email, name, content='entries_search', content_rowid='sk', tokenize='trigram');
--> statement-breakpoint
CREATE TRIGGER `entries_live_ai` AFTER INSERT ON `entries` WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO entries_search(sk, email, name)
    SELECT (p.n << 40) + new.rowid, new.email, new.name FROM search_projects p WHERE p.project_id = new.project_id;
  INSERT INTO entries_fts(rowid, email, name)
    SELECT (p.n << 40) + new.rowid, new.email, new.name FROM search_projects p WHERE p.project_id = new.project_id;
  INSERT INTO entry_counts(project_id, live) VALUES (new.project_id, 1)
    ON CONFLICT(project_id) DO UPDATE SET live = live + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_live_ad` AFTER DELETE ON `entries` WHEN old.deleted_at IS NULL BEGIN
  DELETE FROM entries_search
    WHERE sk = (SELECT (p.n << 40) + old.rowid FROM search_projects p WHERE p.project_id = old.project_id);
  INSERT INTO entries_fts(entries_fts, rowid, email, name)
    SELECT 'delete', (p.n << 40) + old.rowid, old.email, old.name FROM search_projects p WHERE p.project_id = old.project_id;
  UPDATE entry_counts SET live = live - 1 WHERE project_id = old.project_id;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_live_au` AFTER UPDATE OF email, name, deleted_at, project_id ON `entries` BEGIN
  DELETE FROM entries_search WHERE old.deleted_at IS NULL
    AND sk = (SELECT (p.n << 40) + old.rowid FROM search_projects p WHERE p.project_id = old.project_id);
  INSERT INTO entries_fts(entries_fts, rowid, email, name)
    SELECT 'delete', (p.n << 40) + old.rowid, old.email, old.name FROM search_projects p
    WHERE p.project_id = old.project_id AND old.deleted_at IS NULL;
  UPDATE entry_counts SET live = live - 1 WHERE project_id = old.project_id AND old.deleted_at IS NULL;
  INSERT INTO entries_search(sk, email, name)
    SELECT (p.n << 40) + new.rowid, new.email, new.name FROM search_projects p
    WHERE p.project_id = new.project_id AND new.deleted_at IS NULL;
  INSERT INTO entries_fts(rowid, email, name)
    SELECT (p.n << 40) + new.rowid, new.email, new.name FROM search_projects p
    WHERE p.project_id = new.project_id AND new.deleted_at IS NULL;
  INSERT INTO entry_counts(project_id, live)
    SELECT new.project_id, 1 WHERE new.deleted_at IS NULL
    ON CONFLICT(project_id) DO UPDATE SET live = live + 1;
END;
--> statement-breakpoint
INSERT INTO entries_search(sk, email, name)
  SELECT (p.n << 40) + e.rowid, e.email, e.name FROM entries e JOIN search_projects p ON p.project_id = e.project_id
  WHERE e.deleted_at IS NULL;
--> statement-breakpoint
INSERT INTO entries_fts(entries_fts) VALUES ('rebuild');
