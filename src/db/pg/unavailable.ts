// Which PostgreSQL failures mean "the database cannot serve right now" (503 + Retry-After) rather than a
// bug (500). node-postgres reports network failures with a Node error code, server refusals with a
// SQLSTATE, and its own pool/client timeouts with a bare message; drizzle wraps all of them in a
// DrizzleQueryError whose `cause` is the original. The message we build never carries the raw error
// text (it may hold a host name or SQL); the raw error stays the `cause`, for the log.
import { DatabaseUnavailableError } from '../errors.js';

// Network errors from the socket (connect or mid-query).
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

// SQLSTATEs (https://www.postgresql.org/docs/current/errcodes-appendix.html) → what we say, Retry-After.
const SQLSTATE: Record<string, [string, number]> = {
  '57P01': ['PostgreSQL is shutting down', 2], // admin_shutdown (pg_ctl stop, failover)
  '57P02': ['PostgreSQL crashed', 2], // crash_shutdown
  '57P03': ['PostgreSQL is starting up or in recovery', 2], // cannot_connect_now
  '57P04': ['the database was dropped', 5],
  '57P05': ['the connection was closed for being idle', 1],
  '57014': ['a statement ran past the statement timeout', 1], // query_canceled (statement_timeout)
  '55P03': ['a lock could not be taken in time', 1], // lock_not_available (lock_timeout)
  '53000': ['PostgreSQL is out of resources', 2], // insufficient_resources
  '53100': ['PostgreSQL is out of disk space', 5], // disk_full
  '53200': ['PostgreSQL is out of memory', 2],
  '53300': ['PostgreSQL has no free connection slots', 1], // too_many_connections
  '25006': ['the database is read-only (a standby?)', 2], // read_only_sql_transaction (after a failover)
  '40001': ['a transaction conflicted with another; retry', 1], // serialization_failure
  '40P01': ['a transaction deadlocked; retry', 1], // deadlock_detected
};

// node-postgres / pg-pool errors that have no code.
const MESSAGES: [RegExp, string, number][] = [
  [/^timeout exceeded when trying to connect$/, 'no database connection became free in time (pool acquire timeout)', 1],
  [/^timeout expired$/, 'connecting to PostgreSQL timed out', 2],
  [/^Connection terminated/, 'the connection to PostgreSQL was lost', 2],
  [/^Query read timeout$/, 'PostgreSQL did not answer in time', 2],
  [/is not queryable$/, 'the connection to PostgreSQL was lost', 2],
  [/^Cannot use a pool after calling end on the pool$/, 'the server is shutting down', 1],
];

/** The reason this error means "PostgreSQL cannot serve now", or undefined when it is something else. */
export function pgUnavailable(err: unknown): DatabaseUnavailableError | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++, e = e.cause) {
    if (e instanceof DatabaseUnavailableError) return e;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (NETWORK.has(code)) return new DatabaseUnavailableError(`PostgreSQL is unreachable (${code})`, 2, { cause: err });
      const known = SQLSTATE[code];
      if (known) return new DatabaseUnavailableError(`${known[0]} (${code})`, known[1], { cause: err });
      if (code.startsWith('08')) return new DatabaseUnavailableError(`the connection to PostgreSQL failed (${code})`, 2, { cause: err });
    }
    for (const [re, reason, retry] of MESSAGES) {
      if (re.test(e.message)) return new DatabaseUnavailableError(reason, retry, { cause: err });
    }
    // AggregateError: a host name resolving to several addresses, each refused.
    if (e instanceof AggregateError && e.errors.some((x) => pgUnavailable(x))) {
      return new DatabaseUnavailableError('PostgreSQL is unreachable', 2, { cause: err });
    }
  }
  return undefined;
}
