-- The catalog version: one counter bumped (in the writing transaction) by every change to projects and
-- to the api_keys columns the key check reads. Each instance caches slug and key lookups under the
-- version they were read at, and reads the version once per event-loop turn of requests (a read issued
-- after those requests arrived), so a revocation or project deletion committed by any instance applies
-- to the next request everywhere. last_used_at and name updates do not bump it (the join batches touch
-- last_used_at). Hand-written: drizzle cannot model triggers.
CREATE TABLE "catalog_version" (
	"id" smallint PRIMARY KEY NOT NULL,
	"v" bigint NOT NULL
);
--> statement-breakpoint
INSERT INTO "catalog_version" ("id", "v") VALUES (1, 0);
--> statement-breakpoint
CREATE FUNCTION "catalog_version_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "catalog_version" SET "v" = "v" + 1 WHERE "id" = 1;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "projects_catalog_version" AFTER INSERT OR UPDATE OR DELETE ON "projects"
  FOR EACH STATEMENT EXECUTE FUNCTION "catalog_version_bump"();
--> statement-breakpoint
CREATE TRIGGER "projects_catalog_version_truncate" AFTER TRUNCATE ON "projects"
  FOR EACH STATEMENT EXECUTE FUNCTION "catalog_version_bump"();
--> statement-breakpoint
CREATE TRIGGER "api_keys_catalog_version" AFTER INSERT OR DELETE
  OR UPDATE OF "id", "project_id", "lookup", "secret_hash", "revoked_at", "kind" ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "catalog_version_bump"();
--> statement-breakpoint
CREATE TRIGGER "api_keys_catalog_version_truncate" AFTER TRUNCATE ON "api_keys"
  FOR EACH STATEMENT EXECUTE FUNCTION "catalog_version_bump"();
--> statement-breakpoint
-- The trigram indexes' pending lists (GIN fastupdate) are scanned in full by every search: at the
-- default 4 MB limit that is ~500 pages, 30+ ms for a selective needle at 1M entries (0.6 ms once
-- merged). 256 kB keeps inserts batched into the list while bounding that scan to 32 pages.
ALTER INDEX "entries_email_trgm_idx" SET (gin_pending_list_limit = 256);
--> statement-breakpoint
ALTER INDEX "entries_name_trgm_idx" SET (gin_pending_list_limit = 256);
