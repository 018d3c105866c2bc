-- The join path (issue 15): the FTS5 trigram index is no longer written by the insert trigger, on the
-- join's critical path. New and changed live entries are queued in `fts_pending` (one integer row: the
-- entry's search key, sk of 0008_search.sql) and indexed in bulk right after the join's commit
-- (src/db/sqlite/fts-indexer.ts). Searches stay exact: a search matches the indexed entries through
-- entries_fts and the project's queued ones one by one (src/db/sqlite/entry-reads.ts). Invariant, kept
-- by the triggers below inside every write:
--   entries_fts holds exactly the entries_search rows whose sk is not in fts_pending;
--   every fts_pending sk is an entries_search sk.
-- The triggers are those of 0008_search.sql with the FTS insert replaced by the queue insert, and the
-- FTS delete made only for an entry that was indexed.
CREATE TABLE `fts_pending` (
	`sk` integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
DROP TRIGGER `entries_live_ai`;
--> statement-breakpoint
CREATE TRIGGER `entries_live_ai` AFTER INSERT ON `entries` WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO entries_search(sk, email, name)
    SELECT (p.n << 40) + new.rowid, new.email, new.name FROM search_projects p WHERE p.project_id = new.project_id;
  INSERT INTO fts_pending(sk)
    SELECT (p.n << 40) + new.rowid FROM search_projects p WHERE p.project_id = new.project_id;
  INSERT INTO entry_counts(project_id, live) VALUES (new.project_id, 1)
    ON CONFLICT(project_id) DO UPDATE SET live = live + 1;
END;
--> statement-breakpoint
DROP TRIGGER `entries_live_ad`;
--> statement-breakpoint
CREATE TRIGGER `entries_live_ad` AFTER DELETE ON `entries` WHEN old.deleted_at IS NULL BEGIN
  DELETE FROM entries_search
    WHERE sk = (SELECT (p.n << 40) + old.rowid FROM search_projects p WHERE p.project_id = old.project_id);
  INSERT INTO entries_fts(entries_fts, rowid, email, name)
    SELECT 'delete', (p.n << 40) + old.rowid, old.email, old.name FROM search_projects p
    WHERE p.project_id = old.project_id
      AND NOT EXISTS (SELECT 1 FROM fts_pending q WHERE q.sk = (p.n << 40) + old.rowid);
  DELETE FROM fts_pending
    WHERE sk = (SELECT (p.n << 40) + old.rowid FROM search_projects p WHERE p.project_id = old.project_id);
  UPDATE entry_counts SET live = live - 1 WHERE project_id = old.project_id;
END;
--> statement-breakpoint
DROP TRIGGER `entries_live_au`;
--> statement-breakpoint
CREATE TRIGGER `entries_live_au` AFTER UPDATE OF email, name, deleted_at, project_id ON `entries` BEGIN
  DELETE FROM entries_search WHERE old.deleted_at IS NULL
    AND sk = (SELECT (p.n << 40) + old.rowid FROM search_projects p WHERE p.project_id = old.project_id);
  INSERT INTO entries_fts(entries_fts, rowid, email, name)
    SELECT 'delete', (p.n << 40) + old.rowid, old.email, old.name FROM search_projects p
    WHERE p.project_id = old.project_id AND old.deleted_at IS NULL
      AND NOT EXISTS (SELECT 1 FROM fts_pending q WHERE q.sk = (p.n << 40) + old.rowid);
  DELETE FROM fts_pending
    WHERE sk = (SELECT (p.n << 40) + old.rowid FROM search_projects p WHERE p.project_id = old.project_id);
  UPDATE entry_counts SET live = live - 1 WHERE project_id = old.project_id AND old.deleted_at IS NULL;
  INSERT INTO entries_search(sk, email, name)
    SELECT (p.n << 40) + new.rowid, new.email, new.name FROM search_projects p
    WHERE p.project_id = new.project_id AND new.deleted_at IS NULL;
  INSERT INTO fts_pending(sk)
    SELECT (p.n << 40) + new.rowid FROM search_projects p
    WHERE p.project_id = new.project_id AND new.deleted_at IS NULL;
  INSERT INTO entry_counts(project_id, live)
    SELECT new.project_id, 1 WHERE new.deleted_at IS NULL
    ON CONFLICT(project_id) DO UPDATE SET live = live + 1;
END;
--> statement-breakpoint
-- config_version: bumped in the same transaction as any change to a project or to what authorises a
-- key, by any process sharing the file. The server caches project and key rows per slug and lookup
-- and reads this one integer per request instead of both rows: a revocation, deletion, restore or
-- settings change applies to the very next request on every server, as before.
CREATE TABLE `config_version` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`v` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO config_version(id, v) VALUES (1, 0);
--> statement-breakpoint
CREATE TRIGGER `projects_version_ai` AFTER INSERT ON `projects` BEGIN UPDATE config_version SET v = v + 1; END;
--> statement-breakpoint
CREATE TRIGGER `projects_version_au` AFTER UPDATE ON `projects` BEGIN UPDATE config_version SET v = v + 1; END;
--> statement-breakpoint
CREATE TRIGGER `projects_version_ad` AFTER DELETE ON `projects` BEGIN UPDATE config_version SET v = v + 1; END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_version_ai` AFTER INSERT ON `api_keys` BEGIN UPDATE config_version SET v = v + 1; END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_version_au` AFTER UPDATE OF id, project_id, lookup, secret_hash, revoked_at, kind ON `api_keys`
BEGIN UPDATE config_version SET v = v + 1; END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_version_ad` AFTER DELETE ON `api_keys` BEGIN UPDATE config_version SET v = v + 1; END;
