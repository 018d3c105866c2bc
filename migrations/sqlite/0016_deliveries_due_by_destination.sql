-- The dispatcher shares its send slots between destinations (each webhook, each project's email), so one
-- webhook with a long backlog to a receiver that never answers no longer holds up everyone else's
-- deliveries (docs/events.md, "Sending"). A claim reads each destination's oldest due deliveries: the
-- due index is now by destination. Each pending row is in exactly one of the two, as it was in the one
-- they replace: a join's webhook delivery writes no more index entries than before.
DROP INDEX IF EXISTS `deliveries_due_idx`;
--> statement-breakpoint
CREATE INDEX `deliveries_hook_due_idx` ON `deliveries` (`webhook_id`,`next_attempt_at`) WHERE `status` = 'pending' AND `webhook_id` IS NOT NULL;
--> statement-breakpoint
CREATE INDEX `deliveries_mail_due_idx` ON `deliveries` (`project_id`,`next_attempt_at`) WHERE `status` = 'pending' AND `webhook_id` IS NULL;
