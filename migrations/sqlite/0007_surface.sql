ALTER TABLE `entries` ADD `fields` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
CREATE TABLE `server_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `captcha_solutions` (
	`signature` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `captcha_solutions_expires_idx` ON `captcha_solutions` (`expires_at`);
