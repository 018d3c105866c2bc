-- Two indexes of the deliveries table that a webhook delivery never needed while pending: every
-- webhook event (a join's entry.created, with a webhook) wrote them, for reads that only look at other
-- rows (docs/performance.md, round twelve).
-- - The email log (GET /api/project/:id/emails) and an erasure's scrub read email rows only: the
--   project index keeps only those.
-- - The 30-day prune reads delivered and failed rows only: the updated-at index keeps only those, so a
--   delivery enters it when its outcome is recorded, not when it is queued.
DROP INDEX `deliveries_project_kind_idx`;
--> statement-breakpoint
CREATE INDEX `deliveries_email_idx` ON `deliveries` (`project_id`,`id`) WHERE `kind` = 'email';
--> statement-breakpoint
DROP INDEX `deliveries_updated_idx`;
--> statement-breakpoint
CREATE INDEX `deliveries_done_idx` ON `deliveries` (`updated_at`) WHERE `status` <> 'pending';
