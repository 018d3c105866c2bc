-- Waiting entries per group of 64 buckets (65,536 keys of k), beside the per-bucket counts of
-- 0005_lifecycle.sql. An exact position summed the counts of every bucket below the entry's, and the
-- waiting total (read by every status, every queue page and every join batch) summed all of them: ~980
-- rows per 1M entries, 0.4 ms each time. Now it is the groups below (≤ 16 rows per 1M) plus the buckets
-- of the entry's own group (< 64 rows), and the total is the groups alone. position_buckets_apply, the
-- one function all bucket triggers call, keeps both in the same statement's transaction, groups after
-- buckets, each in (project, key) order, so writers lock them in one order.
CREATE TABLE "position_groups" (
	"project_id" text NOT NULL,
	"grp" bigint NOT NULL,
	"n" bigint NOT NULL,
	PRIMARY KEY ("project_id", "grp")
);
--> statement-breakpoint
INSERT INTO "position_groups" ("project_id", "grp", "n")
  SELECT "project_id", "bucket" >> 6, sum("n") FROM "position_buckets" GROUP BY 1, 2;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "position_buckets_apply"(deltas jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "position_buckets" ("project_id", "bucket", "n")
  SELECT d->>'p', (d->>'b')::bigint, (d->>'n')::bigint
  FROM jsonb_array_elements(deltas) AS d
  WHERE (d->>'n')::bigint <> 0
  ORDER BY 1, 2
  ON CONFLICT ("project_id", "bucket") DO UPDATE SET "n" = "position_buckets"."n" + EXCLUDED."n";
  INSERT INTO "position_groups" ("project_id", "grp", "n")
  SELECT d->>'p', (d->>'b')::bigint >> 6, sum((d->>'n')::bigint)
  FROM jsonb_array_elements(deltas) AS d
  GROUP BY 1, 2
  HAVING sum((d->>'n')::bigint) <> 0
  ORDER BY 1, 2
  ON CONFLICT ("project_id", "grp") DO UPDATE SET "n" = "position_groups"."n" + EXCLUDED."n";
END $$;
