// Database flags shared by `serve` and the local `admin` commands (same defaults and env vars).
import type { Command } from 'commander';
import type { DbConfig } from '../../db/index.js';
import { CliError, EXIT } from '../errors.js';

/** Adds --db and --database-url, their defaults read from `env` (the process's, or a test context's). */
export function addDbOptions(cmd: Command, env: Record<string, string | undefined> = process.env): Command {
  return cmd
    .option('--db <file>', 'SQLite database file (env WAITLIST_DB)', env.WAITLIST_DB || './waitlist.db')
    .option(
      '--database-url <url>',
      'PostgreSQL URL; when set, PostgreSQL is used instead of SQLite (env DATABASE_URL)',
      env.DATABASE_URL || undefined,
    );
}

/** The URL as it may be shown: without its password (it would otherwise land in a terminal or a CI log). */
function shown(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * The database config of a command's flags. A --database-url (or DATABASE_URL, its default) that is not
 * a postgres:// or postgresql:// URL is a usage error (exit 2) before anything is opened or resolved.
 * `cmd` tells whether the value came from the environment, so the message names the variable too.
 */
export function dbConfig(opts: { db: string; databaseUrl?: string }, cmd?: Command): DbConfig {
  const url = opts.databaseUrl;
  if (url !== undefined && !/^postgres(ql)?:\/\//i.test(url.trim())) {
    const fromEnv = cmd?.getOptionValueSource('databaseUrl') === 'default';
    throw new CliError(
      `${fromEnv ? 'DATABASE_URL (the default of --database-url)' : '--database-url'} must be a PostgreSQL URL such as ` +
        `postgres://user@host:5432/waitlist, not '${shown(url)}'`,
      EXIT.usage,
    );
  }
  return { file: opts.db, databaseUrl: url };
}
