ALTER TABLE `projects` ADD `allowed_origins` text;--> statement-breakpoint
ALTER TABLE `projects` ADD `block_disposable` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `projects` ADD `honeypot_field` text;