// Bodies of the admin commands, loaded only when one runs.
import { signupBody } from '../../contract/schemas.js';
import { openStore, type DbConfig } from '../../db/index.js';
import { AppError } from '../../core/errors.js';
import { restoreProject as restore } from '../../core/projects.js';
import { addUser as add, resetPassword as reset } from '../../core/users.js';
import { CliError, EXIT } from '../main.js';
import { readPassword } from '../password.js';

async function withStore<T>(config: DbConfig, fn: (store: Awaited<ReturnType<typeof openStore>>) => Promise<T>) {
  const store = await openStore(config);
  try {
    return await fn(store);
  } catch (err) {
    if (err instanceof AppError) throw new CliError(err.message, EXIT.error);
    throw err;
  } finally {
    await store.close();
  }
}

function validUser(input: { email: string; password: string; name?: string }) {
  const parsed = signupBody.safeParse(input);
  if (!parsed.success) {
    throw new CliError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '), EXIT.usage);
  }
  return parsed.data;
}

export async function addUser(config: DbConfig, opts: { email: string; name?: string; passwordStdin?: boolean }) {
  const password = await readPassword(Boolean(opts.passwordStdin), true);
  const body = validUser({ email: opts.email, password, ...(opts.name ? { name: opts.name } : {}) });
  const user = await withStore(config, (store) => add(store, body));
  process.stdout.write(`Created user ${user.email} (${user.id})\n`);
}

export async function resetPassword(config: DbConfig, opts: { email: string; passwordStdin?: boolean }) {
  const password = await readPassword(Boolean(opts.passwordStdin), true);
  validUser({ email: opts.email, password });
  const user = await withStore(config, (store) => reset(store, opts.email, password));
  process.stdout.write(`Password reset for ${user.email}; all of its sessions were ended\n`);
}

export async function restoreProject(config: DbConfig, projectId: string) {
  const p = await withStore(config, (store) => restore(store, projectId));
  process.stdout.write(`Restored project ${p.slug} (${p.id}) with its keys and entries\n`);
}
