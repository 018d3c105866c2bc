-- Search trigrams in a narrow table of their own. The trigram GIN indexes sat on `entries`, so every
-- UPDATE that cannot be HOT (a referral credit changes `k` and `referrals`, an invite `status` and the
-- invite code, a confirmation `status`) wrote a new entry into both GIN indexes for an email and a name
-- that had not changed: half of an invite batch's UPDATE time at 1M entries (950 → 480 ms for 10,000
-- rows without them) and about 40 % of a credit. `entry_search` holds a copy of what search reads
-- (email_norm, name, live) and is written only when those change: by the statement triggers below on
-- insert and delete, by a row trigger that fires only when an UPDATE sets one of its columns to another
-- value. Searches count and page on this narrow table (a match's row is ~80 bytes here, ~500 in
-- `entries`). Hand-written: drizzle cannot model triggers.
CREATE TABLE "entry_search" (
	"entry_id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"email_norm" text NOT NULL,
	"name" text,
	"live" boolean NOT NULL
);
--> statement-breakpoint
INSERT INTO "entry_search" ("entry_id", "project_id", "email_norm", "name", "live")
  SELECT "id", "project_id", "email_norm", "name", "deleted_at" IS NULL FROM "entries";
--> statement-breakpoint
-- The pending-list limit as on the indexes these replace (0007_perf.sql): inserts stay batched, and a
-- search's scan of the unmerged list stays bounded.
CREATE INDEX "entry_search_email_trgm_idx" ON "entry_search" USING gin ("email_norm" gin_trgm_ops) WITH (gin_pending_list_limit = 256);
--> statement-breakpoint
CREATE INDEX "entry_search_name_trgm_idx" ON "entry_search" USING gin (lower("name") gin_trgm_ops) WITH (gin_pending_list_limit = 256);
--> statement-breakpoint
DROP INDEX "entries_email_trgm_idx";
--> statement-breakpoint
DROP INDEX "entries_name_trgm_idx";
--> statement-breakpoint
CREATE FUNCTION "entry_search_on_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "entry_search" ("entry_id", "project_id", "email_norm", "name", "live")
  SELECT "id", "project_id", "email_norm", "name", "deleted_at" IS NULL FROM new_rows;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "entries_search_insert" AFTER INSERT ON "entries"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "entry_search_on_insert"();
--> statement-breakpoint
CREATE FUNCTION "entry_search_on_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "entry_search" SET "project_id" = NEW."project_id", "email_norm" = NEW."email_norm", "name" = NEW."name",
    "live" = NEW."deleted_at" IS NULL
  WHERE "entry_id" = NEW."id";
  RETURN NULL;
END $$;
--> statement-breakpoint
-- Fires only for UPDATEs that set one of these columns (a credit, an invite or a confirmation sets none),
-- and only for rows where the value really changed.
CREATE TRIGGER "entries_search_update" AFTER UPDATE OF "project_id", "email_norm", "name", "deleted_at" ON "entries"
  FOR EACH ROW WHEN (OLD."project_id" IS DISTINCT FROM NEW."project_id" OR OLD."email_norm" IS DISTINCT FROM NEW."email_norm"
    OR OLD."name" IS DISTINCT FROM NEW."name" OR (OLD."deleted_at" IS NULL) <> (NEW."deleted_at" IS NULL))
  EXECUTE FUNCTION "entry_search_on_update"();
--> statement-breakpoint
-- An erased entry (leave, purge, a project's deletion) takes its copy with it, in the same transaction.
CREATE FUNCTION "entry_search_on_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "entry_search" s USING old_rows o WHERE s."entry_id" = o."id";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "entries_search_delete" AFTER DELETE ON "entries"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "entry_search_on_delete"();
--> statement-breakpoint
CREATE FUNCTION "entry_search_on_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE "entry_search";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "entries_search_truncate" AFTER TRUNCATE ON "entries"
  FOR EACH STATEMENT EXECUTE FUNCTION "entry_search_on_truncate"();
