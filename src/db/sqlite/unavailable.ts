// SQLite failures that mean "cannot write right now" (locked, read-only, full, I/O), for the readiness
// probe. (The hardening layer classifies the same codes for every query.)
import { DatabaseUnavailableError } from '../errors.js';

const CODES: [RegExp, string][] = [
  [/^SQLITE_(BUSY|LOCKED)/, 'the database file is locked'],
  [/^SQLITE_READONLY/, 'the database file is read-only'],
  [/^SQLITE_FULL/, 'the disk holding the database is full'],
  [/^SQLITE_(IOERR|CANTOPEN)/, 'the database file cannot be read or written'],
];

/** The readiness reason for a better-sqlite3 error, or undefined when it is something else. */
export function sqliteUnavailable(err: unknown): DatabaseUnavailableError | undefined {
  if (err instanceof DatabaseUnavailableError) return err;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  for (const [re, reason] of CODES) if (re.test(code)) return new DatabaseUnavailableError(reason, 1, { cause: err });
  return undefined;
}
