// Bodies of the admin commands, loaded only when one runs. They work on an existing database only
// (never creating one in the wrong directory) and every message names the database they opened.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { signupBody } from '../../contract/schemas.js';
import { AppError } from '../../core/errors.js';
import { restoreProject as restore } from '../../core/projects.js';
import { addUser as add, resetPassword as reset } from '../../core/users.js';
import { type DbConfig, openStore, type Store } from '../../db/index.js';
import { type CliContext, validate } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { PASSWORD_LABEL, readPassword } from '../password.js';

/** The database for messages: the SQLite file's absolute path, or the PostgreSQL URL without its password. */
export function databaseName(config: DbConfig): string {
  if (!config.databaseUrl) return resolve(config.file);
  try {
    const u = new URL(config.databaseUrl);
    u.password = '';
    return u.toString();
  } catch {
    return 'the PostgreSQL database (unparsable --database-url)';
  }
}

/** Whether the database already holds the service's tables; looked at without creating or migrating anything. */
async function hasWaitlistTables(config: DbConfig): Promise<boolean> {
  if (config.databaseUrl) {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: config.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>(`SELECT to_regclass('users') IS NOT NULL AS ok`);
      return rows[0]?.ok === true;
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(config.file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'users'`).get() !== undefined;
  } finally {
    db.close();
  }
}

/**
 * Opens the server's existing database (never a new one: SQLite would create a missing file, and both
 * dialects would migrate an empty database) and turns domain errors into messages naming it.
 */
async function withStore<T>(config: DbConfig, fn: (store: Store) => Promise<T>): Promise<T> {
  const name = databaseName(config);
  const where = `pass --db <file> (or set WAITLIST_DB) naming the server's database, or --database-url for PostgreSQL`;
  if (!config.databaseUrl && (!existsSync(config.file) || statSync(config.file).size === 0)) {
    throw new CliError(`no database at ${name}: ${where}`, EXIT.error);
  }
  let ours: boolean;
  try {
    ours = await hasWaitlistTables(config);
  } catch (err) {
    throw new CliError(`cannot open the database ${name}: ${(err as Error).message}`, EXIT.error);
  }
  if (!ours)
    throw new CliError(`${name} is not a waitlist database (no users table; \`waitlist serve\` creates one): ${where}`, EXIT.error);
  let store: Store;
  try {
    store = await openStore(config);
  } catch (err) {
    throw new CliError(`cannot open the database ${name}: ${(err as Error).message}`, EXIT.error);
  }
  try {
    return await fn(store);
  } catch (err) {
    if (err instanceof AppError) throw new CliError(`${err.message} (database ${name})`, EXIT.error);
    throw err;
  } finally {
    await store.close();
  }
}

async function userInput(ctx: CliContext, input: { email: string; name?: string | undefined; passwordStdin?: boolean | undefined }) {
  const password = await readPassword(ctx, input.passwordStdin, true);
  return validate(signupBody, { email: input.email, password, ...(input.name ? { name: input.name } : {}) }, PASSWORD_LABEL);
}

export async function addUser(ctx: CliContext, config: DbConfig, opts: { email: string; name?: string; passwordStdin?: boolean }) {
  const body = await userInput(ctx, opts);
  const user = await withStore(config, (store) => add(store, body));
  ctx.io.stdout.write(`Created user ${user.email} (${user.id}) in ${databaseName(config)}\n`);
}

export async function resetPassword(ctx: CliContext, config: DbConfig, opts: { email: string; passwordStdin?: boolean }) {
  const { email, password } = await userInput(ctx, opts);
  const user = await withStore(config, (store) => reset(store, email, password));
  ctx.io.stdout.write(`Password reset for ${user.email} in ${databaseName(config)}; all of its sessions were ended\n`);
}

export async function restoreProject(ctx: CliContext, config: DbConfig, projectId: string) {
  const { p, wasDeleted } = await withStore(config, async (store) => {
    const before = await store.projectByIdAny(projectId);
    // A live project: nothing to undo (exit 0, like any command whose goal already holds), but say so.
    if (before && before.deletedAt === null) return { p: before, wasDeleted: false };
    return { p: await restore(store, projectId), wasDeleted: true }; // unknown id: "Project not found"
  });
  ctx.io.stdout.write(
    wasDeleted
      ? `Restored project ${p.slug} (${p.id}) with its keys and entries in ${databaseName(config)}\n`
      : `Project ${p.slug} (${p.id}) is not deleted: nothing to restore in ${databaseName(config)}\n`,
  );
}
