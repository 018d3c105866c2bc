-- The waitlist lifecycle (LIFECYCLE.md): key kinds, entry statuses, join ordinals, referral codes,
-- status/confirm/invite tokens (stored as SHA-256 only), and the queue.
-- The queue order is k = ordinal - referralBoost * referrals (then ordinal). An exact position is
-- "waiting entries ahead + 1", counted as: full 1024-wide buckets of k below mine (position_buckets,
-- kept by the triggers below in the same transaction as the write) + waiting entries in my bucket
-- ahead of me (an index range of at most 1024 keys). So a join, credit or invite touches O(1) rows.
ALTER TABLE `api_keys` ADD `kind` text DEFAULT 'publishable' NOT NULL;
--> statement-breakpoint
ALTER TABLE `entries` ADD `status` text DEFAULT 'waiting' NOT NULL;
--> statement-breakpoint
ALTER TABLE `entries` ADD `ordinal` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `entries` ADD `k` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `entries` ADD `referral_code` text;
--> statement-breakpoint
ALTER TABLE `entries` ADD `referred_by` text;
--> statement-breakpoint
ALTER TABLE `entries` ADD `referrals` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `entries` ADD `status_token_hash` text;
--> statement-breakpoint
ALTER TABLE `entries` ADD `confirm_token_hash` text;
--> statement-breakpoint
ALTER TABLE `entries` ADD `confirm_sent_at` integer;
--> statement-breakpoint
ALTER TABLE `entries` ADD `confirm_resent_at` integer;
--> statement-breakpoint
ALTER TABLE `entries` ADD `confirmed_at` integer;
--> statement-breakpoint
ALTER TABLE `entries` ADD `invited_at` integer;
--> statement-breakpoint
ALTER TABLE `entries` ADD `accepted_at` integer;
--> statement-breakpoint
ALTER TABLE `entries` ADD `invite_code_hash` text;
--> statement-breakpoint
ALTER TABLE `entries` ADD `invite_expires_at` integer;
--> statement-breakpoint
CREATE TABLE `entry_ordinals` (
	`project_id` text PRIMARY KEY NOT NULL,
	`last` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `position_buckets` (
	`project_id` text NOT NULL,
	`bucket` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY (`project_id`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Existing entries: ordinals in createdAt order (deleted ones too: ordinals are never reused).
UPDATE entries SET ordinal = o.n, k = o.n, referral_code = lower(hex(randomblob(6)))
FROM (SELECT id, row_number() OVER (PARTITION BY project_id ORDER BY created_at, id) AS n FROM entries) AS o
WHERE entries.id = o.id;
--> statement-breakpoint
INSERT INTO entry_ordinals(project_id, last) SELECT project_id, max(ordinal) FROM entries GROUP BY project_id;
--> statement-breakpoint
CREATE UNIQUE INDEX `entries_referral_code_uq` ON `entries` (`project_id`,`referral_code`);
--> statement-breakpoint
CREATE UNIQUE INDEX `entries_status_token_uq` ON `entries` (`status_token_hash`);
--> statement-breakpoint
CREATE UNIQUE INDEX `entries_confirm_token_uq` ON `entries` (`confirm_token_hash`);
--> statement-breakpoint
CREATE UNIQUE INDEX `entries_invite_code_uq` ON `entries` (`invite_code_hash`);
--> statement-breakpoint
CREATE INDEX `entries_queue_idx` ON `entries` (`project_id`,`status`,`k`,`ordinal`) WHERE "entries"."deleted_at" IS NULL;
--> statement-breakpoint
CREATE INDEX `entries_referrals_idx` ON `entries` (`project_id`,`referrals`,`ordinal`) WHERE "entries"."deleted_at" IS NULL AND "entries"."referrals" > 0;
--> statement-breakpoint
CREATE INDEX `entries_pending_idx` ON `entries` (`status`,`created_at`) WHERE "entries"."deleted_at" IS NULL AND "entries"."status" = 'pending';
--> statement-breakpoint
INSERT INTO position_buckets(project_id, bucket, n)
  SELECT project_id, k >> 10, count(*) FROM entries WHERE status = 'waiting' AND deleted_at IS NULL GROUP BY project_id, k >> 10;
--> statement-breakpoint
CREATE TRIGGER `entries_queue_ai` AFTER INSERT ON `entries` WHEN new.status = 'waiting' AND new.deleted_at IS NULL BEGIN
  INSERT INTO position_buckets(project_id, bucket, n) VALUES (new.project_id, new.k >> 10, 1)
    ON CONFLICT(project_id, bucket) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_queue_ad` AFTER DELETE ON `entries` WHEN old.status = 'waiting' AND old.deleted_at IS NULL BEGIN
  UPDATE position_buckets SET n = n - 1 WHERE project_id = old.project_id AND bucket = old.k >> 10;
END;
--> statement-breakpoint
CREATE TRIGGER `entries_queue_au` AFTER UPDATE OF status, k, deleted_at, project_id ON `entries`
WHEN (old.status = 'waiting' AND old.deleted_at IS NULL) OR (new.status = 'waiting' AND new.deleted_at IS NULL) BEGIN
  UPDATE position_buckets SET n = n - 1
    WHERE project_id = old.project_id AND bucket = old.k >> 10 AND old.status = 'waiting' AND old.deleted_at IS NULL;
  INSERT INTO position_buckets(project_id, bucket, n)
    SELECT new.project_id, new.k >> 10, 1 WHERE new.status = 'waiting' AND new.deleted_at IS NULL
    ON CONFLICT(project_id, bucket) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `projects_queue_ad` AFTER DELETE ON `projects` BEGIN
  DELETE FROM position_buckets WHERE project_id = old.id;
  DELETE FROM entry_ordinals WHERE project_id = old.id;
END;
