-- The waitlist lifecycle (LIFECYCLE.md): key kinds, entry statuses, join ordinals, referral codes,
-- status/confirm/invite tokens (stored as SHA-256 only), and the queue.
-- The queue order is k = ordinal - referralBoost * referrals (then ordinal). An exact position is
-- "waiting entries ahead + 1", counted as: full 1024-wide buckets of k below mine (position_buckets,
-- kept by the statement-level triggers below in the same transaction as the write) + waiting entries
-- in my bucket ahead of me (an index range of at most 1024 keys). A join, credit or invite touches
-- O(1) rows. Writes that move the queue lock the project's entry_ordinals row first, so they are
-- serialised per project across instances (no deadlocks between bucket rows).
ALTER TABLE "api_keys" ADD COLUMN "kind" text DEFAULT 'publishable' NOT NULL;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "status" text DEFAULT 'waiting' NOT NULL;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "ordinal" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "k" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "referral_code" text;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "referred_by" text;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "referrals" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "status_token_hash" text;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "confirm_token_hash" text;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "confirm_sent_at" bigint;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "confirm_resent_at" bigint;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "confirmed_at" bigint;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "invited_at" bigint;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "accepted_at" bigint;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "invite_code_hash" text;
--> statement-breakpoint
ALTER TABLE "entries" ADD COLUMN "invite_expires_at" bigint;
--> statement-breakpoint
CREATE TABLE "entry_ordinals" (
	"project_id" text PRIMARY KEY NOT NULL,
	"last" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "position_buckets" (
	"project_id" text NOT NULL,
	"bucket" bigint NOT NULL,
	"n" bigint NOT NULL,
	PRIMARY KEY ("project_id", "bucket")
);
--> statement-breakpoint
-- Existing entries: ordinals in createdAt order (deleted ones too: ordinals are never reused).
UPDATE "entries" SET "ordinal" = o.n, "k" = o.n, "referral_code" = substr(replace(gen_random_uuid()::text, '-', ''), 1, 12)
FROM (SELECT "id", row_number() OVER (PARTITION BY "project_id" ORDER BY "created_at", "id") AS n FROM "entries") AS o
WHERE "entries"."id" = o."id";
--> statement-breakpoint
INSERT INTO "entry_ordinals"("project_id", "last") SELECT "project_id", max("ordinal") FROM "entries" GROUP BY "project_id";
--> statement-breakpoint
CREATE UNIQUE INDEX "entries_referral_code_uq" ON "entries" USING btree ("project_id","referral_code");
--> statement-breakpoint
CREATE UNIQUE INDEX "entries_status_token_uq" ON "entries" USING btree ("status_token_hash");
--> statement-breakpoint
CREATE UNIQUE INDEX "entries_confirm_token_uq" ON "entries" USING btree ("confirm_token_hash");
--> statement-breakpoint
CREATE UNIQUE INDEX "entries_invite_code_uq" ON "entries" USING btree ("invite_code_hash");
--> statement-breakpoint
CREATE INDEX "entries_queue_idx" ON "entries" USING btree ("project_id","status","k","ordinal") WHERE "entries"."deleted_at" IS NULL;
--> statement-breakpoint
CREATE INDEX "entries_referrals_idx" ON "entries" USING btree ("project_id","referrals","ordinal") WHERE "entries"."deleted_at" IS NULL AND "entries"."referrals" > 0;
--> statement-breakpoint
CREATE INDEX "entries_pending_idx" ON "entries" USING btree ("status","created_at") WHERE "entries"."deleted_at" IS NULL AND "entries"."status" = 'pending';
--> statement-breakpoint
INSERT INTO "position_buckets"("project_id", "bucket", "n")
  SELECT "project_id", "k" >> 10, count(*) FROM "entries" WHERE "status" = 'waiting' AND "deleted_at" IS NULL GROUP BY 1, 2;
--> statement-breakpoint
CREATE FUNCTION "position_buckets_apply"(deltas jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "position_buckets" ("project_id", "bucket", "n")
  SELECT d->>'p', (d->>'b')::bigint, (d->>'n')::bigint
  FROM jsonb_array_elements(deltas) AS d
  WHERE (d->>'n')::bigint <> 0
  ORDER BY 1, 2
  ON CONFLICT ("project_id", "bucket") DO UPDATE SET "n" = "position_buckets"."n" + EXCLUDED."n";
END $$;
--> statement-breakpoint
CREATE FUNCTION "position_buckets_on_insert"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "position_buckets_apply"((SELECT coalesce(jsonb_agg(jsonb_build_object('p', p, 'b', b, 'n', n)), '[]') FROM (
    SELECT "project_id" AS p, "k" >> 10 AS b, count(*) AS n FROM new_rows
    WHERE "status" = 'waiting' AND "deleted_at" IS NULL GROUP BY 1, 2) c));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "position_buckets_on_update"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "position_buckets_apply"((SELECT coalesce(jsonb_agg(jsonb_build_object('p', p, 'b', b, 'n', n)), '[]') FROM (
    SELECT p, b, sum(n) AS n FROM (
      SELECT "project_id" AS p, "k" >> 10 AS b, count(*) AS n FROM new_rows
      WHERE "status" = 'waiting' AND "deleted_at" IS NULL GROUP BY 1, 2
      UNION ALL
      SELECT "project_id", "k" >> 10, -count(*) FROM old_rows
      WHERE "status" = 'waiting' AND "deleted_at" IS NULL GROUP BY 1, 2) u
    GROUP BY p, b) c));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "position_buckets_on_delete"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM "position_buckets_apply"((SELECT coalesce(jsonb_agg(jsonb_build_object('p', p, 'b', b, 'n', -n)), '[]') FROM (
    SELECT "project_id" AS p, "k" >> 10 AS b, count(*) AS n FROM old_rows
    WHERE "status" = 'waiting' AND "deleted_at" IS NULL GROUP BY 1, 2) c));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "entries_queue_insert" AFTER INSERT ON "entries"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "position_buckets_on_insert"();
--> statement-breakpoint
CREATE TRIGGER "entries_queue_update" AFTER UPDATE ON "entries"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "position_buckets_on_update"();
--> statement-breakpoint
CREATE TRIGGER "entries_queue_delete" AFTER DELETE ON "entries"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "position_buckets_on_delete"();
