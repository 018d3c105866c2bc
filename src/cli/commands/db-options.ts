// Database flags shared by `serve` and the local `admin` commands (same defaults and env vars).
import type { Command } from 'commander';
import type { DbConfig } from '../../db/index.js';

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

export function dbConfig(opts: { db: string; databaseUrl?: string }): DbConfig {
  return { file: opts.db, databaseUrl: opts.databaseUrl };
}
