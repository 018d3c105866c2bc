-- The search index (entries_fts, FTS5) no longer merges its segments inside the indexer's runs on the
-- server's event loop. With FTS5's default automerge (4), about one run in seven merged segments and
-- took 10-18 ms instead of ~1 ms, holding up every request of that turn (docs/performance.md, round
-- ten). Merging is now done in small bounded steps ('merge', 50 pages) by the checkpoint worker's own
-- connection, off the event loop, or after each run when there is no worker (src/db/sqlite/fts-indexer.ts).
-- FTS5's crisis merge (16 segments on one level) still bounds the segment count if those steps fall behind.
INSERT INTO entries_fts(entries_fts, rank) VALUES('automerge', 0);
