-- Confirmation tokens and invite codes exist for few entries (pending ones; invited ones), yet their
-- unique indexes held an entry for every row, NULL included, so every join inserted two index entries
-- that no lookup ever reads. The indexes now hold only the rows that have a value. A lookup
-- (`confirm_token_hash = ?`, `invite_code_hash = ?`) implies IS NOT NULL, so it still uses them, and
-- uniqueness among the values is unchanged (NULLs were never unique-constrained).
DROP INDEX `entries_confirm_token_uq`;
--> statement-breakpoint
CREATE UNIQUE INDEX `entries_confirm_token_uq` ON `entries` (`confirm_token_hash`) WHERE "entries"."confirm_token_hash" IS NOT NULL;
--> statement-breakpoint
DROP INDEX `entries_invite_code_uq`;
--> statement-breakpoint
CREATE UNIQUE INDEX `entries_invite_code_uq` ON `entries` (`invite_code_hash`) WHERE "entries"."invite_code_hash" IS NOT NULL;
