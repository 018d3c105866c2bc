-- An import's rows are put in date order at its end in transactions of 20,000 moves, each short, so that
-- joins to the project wait for one of them at most instead of the whole reorder (a million rows took
-- about a minute under the queue's lock; src/db/pg/reorder.ts). The moves are planned here first, in one
-- transaction; each transaction of moves deletes the moves it made. Between two of them some of the
-- import's rows may share an ordinal, so a server that starts with moves left finishes them first.
CREATE TABLE IF NOT EXISTS "import_moves" (
	"plan_id" text NOT NULL,
	"project_id" text NOT NULL,
	"seq" bigint NOT NULL,
	"entry_id" text NOT NULL,
	"ordinal" bigint NOT NULL,
	PRIMARY KEY ("plan_id", "seq")
);
