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

async function withStore<T>(config: DbConfig, fn: (store: Store) => Promise<T>): Promise<T> {
  const name = databaseName(config);
  // SQLite would create a missing file: an operator in the wrong directory gets an error, not a new database.
  if (!config.databaseUrl && (!existsSync(config.file) || statSync(config.file).size === 0)) {
    throw new CliError(
      `no database at ${name}: pass --db <file> (or set WAITLIST_DB) naming the server's database, or --database-url for PostgreSQL`,
      EXIT.error,
    );
  }
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
  const p = await withStore(config, (store) => restore(store, projectId));
  ctx.io.stdout.write(`Restored project ${p.slug} (${p.id}) with its keys and entries in ${databaseName(config)}\n`);
}
