// PostgreSQL connection settings of `waitlist serve` (flags --pg-*, env WAITLIST_PG_*). Every wait on the
// database is bounded, so a database that is down or stuck turns into a 503 instead of a hung request.
// Kept apart from src/db/pg so the CLI can show the defaults without loading the driver.

export interface PgOptions {
  /** Connections per instance (pg.Pool max). Instances × poolSize must stay under max_connections. */
  poolSize: number;
  /** Bound on opening a connection AND on waiting for a free one from the pool, in ms. */
  connectTimeoutMs: number;
  /** PostgreSQL statement_timeout for every query of the server, in ms (migrations are not bounded). */
  statementTimeoutMs: number;
}

export const PG_DEFAULTS: PgOptions = {
  poolSize: 10,
  connectTimeoutMs: 5_000,
  statementTimeoutMs: 10_000,
};

// A client-side bound on top of statement_timeout, for a server that stopped answering altogether (a
// network partition): statement_timeout is enforced by the server, so it cannot catch that case.
export const QUERY_TIMEOUT_SLACK_MS = 5_000;

/** Connections each instance keeps open while idle (pg.Pool min); the rest close after 10 s idle. */
export const PG_IDLE_KEPT = 2;
