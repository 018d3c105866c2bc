ALTER TABLE `projects` ADD `settings` text DEFAULT '{}' NOT NULL;
