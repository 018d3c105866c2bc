-- An import's rows are put in date order at its end in steps, each its own transaction, so that other
-- requests are answered meanwhile (src/db/sqlite/reorder.ts). Between two steps some of the import's rows
-- may share an ordinal: this row names the work from before its first step to its last, and a store
-- that opens with one finishes the work before it serves anything.
CREATE TABLE `import_reorders` (
	`id` integer PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`ranges` text NOT NULL
);
