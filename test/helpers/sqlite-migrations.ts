// A SQLite database migrated up to (not including) one migration: for tests of what that migration
// does to a database that already holds data.
import Database from 'better-sqlite3';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';

const FOLDER = resolve(import.meta.dirname, '../../migrations/sqlite');

/**
 * Opens `file` and applies the migrations before `tag` (copied with a shortened journal into a folder
 * of `scratch`). Throws when `tag` is not a migration after the first.
 */
export function migratedBefore(tag: string, file: string, scratch: string): Database.Database {
  const journal = JSON.parse(readFileSync(join(FOLDER, 'meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => e.tag === tag);
  if (at < 1) throw new Error(`no migration ${tag} after the first`);
  journal.entries = journal.entries.slice(0, at);
  const folder = join(scratch, `migrations-before-${tag}`);
  mkdirSync(join(folder, 'meta'), { recursive: true });
  writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify(journal));
  for (const e of journal.entries) cpSync(join(FOLDER, `${e.tag}.sql`), join(folder, `${e.tag}.sql`));
  const db = new Database(file);
  migrate(drizzle(db), { migrationsFolder: folder });
  return db;
}
