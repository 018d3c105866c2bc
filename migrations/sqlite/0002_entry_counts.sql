CREATE TABLE `entry_counts` (
	`project_id` text PRIMARY KEY NOT NULL,
	`live` integer NOT NULL
);
