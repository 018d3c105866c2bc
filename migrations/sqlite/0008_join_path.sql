-- The join path (issue 15): the FTS5 trigram index is no longer written by the insert trigger, on the
-- join's critical path. New and changed live entries are queued in `fts_pending` (one integer row) and
-- indexed in bulk right after the join's commit (src/db/sqlite/fts-indexer.ts). Searches stay exact:
-- a search matches the indexed entries through entries_fts and the queued ones one by one
-- (src/db/sqlite/entry-reads.ts). Invariant, kept by the triggers below inside every write:
--   entries_fts holds exactly the entries_search rows whose rid is not in fts_pending;
--   every fts_pending rid is an entries_search rid.
CREATE TABLE `fts_pending` (
	`rid` integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
DROP TRIGGER `entries_live_ai`;
--> statement-breakpoint
CREATE TRIGGER `entries_live_ai` AFTER INSERT ON `entries` WHEN new.deleted_at IS NULL BEGIN
  INSERT INTO entries_search(rid, project_id, email, name) VALUES (new.rowid, new.project_id, new.email, new.name);
  INSERT INTO fts_pending(rid) VALUES (new.rowid);
  INSERT INTO entry_counts(project_id, live) VALUES (new.project_id, 1)
    ON CONFLICT(project_id) DO UPDATE SET live = live + 1;
END;
--> statement-breakpoint
DROP TRIGGER `entries_live_ad`;
--> statement-breakpoint
CREATE TRIGGER `entries_live_ad` AFTER DELETE ON `entries` WHEN old.deleted_at IS NULL BEGIN
  DELETE FROM entries_search WHERE rid = old.rowid;
  INSERT INTO entries_fts(entries_fts, rowid, email, name)
    SELECT 'delete', old.rowid, old.email, old.name WHERE NOT EXISTS (SELECT 1 FROM fts_pending WHERE rid = old.rowid);
  DELETE FROM fts_pending WHERE rid = old.rowid;
  UPDATE entry_counts SET live = live - 1 WHERE project_id = old.project_id;
END;
--> statement-breakpoint
DROP TRIGGER `entries_live_au`;
--> statement-breakpoint
CREATE TRIGGER `entries_live_au` AFTER UPDATE OF email, name, deleted_at, project_id ON `entries` BEGIN
  DELETE FROM entries_search WHERE rid = old.rowid AND old.deleted_at IS NULL;
  INSERT INTO entries_fts(entries_fts, rowid, email, name)
    SELECT 'delete', old.rowid, old.email, old.name
    WHERE old.deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM fts_pending WHERE rid = old.rowid);
  DELETE FROM fts_pending WHERE rid = old.rowid;
  UPDATE entry_counts SET live = live - 1 WHERE project_id = old.project_id AND old.deleted_at IS NULL;
  INSERT INTO entries_search(rid, project_id, email, name)
    SELECT new.rowid, new.project_id, new.email, new.name WHERE new.deleted_at IS NULL;
  INSERT INTO fts_pending(rid) SELECT new.rowid WHERE new.deleted_at IS NULL;
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
