// Bodies of signup, login, logout and whoami, loaded only when one runs.
import { ApiError, WaitlistClient } from '../../client/index.js';
import { loginBody, signupBody } from '../../contract/schemas.js';
import type { User } from '../../contract/types.js';
import { clearSession, credentialsPath, resolveCredentials, saveCredentials } from '../config.js';
import { interactive, notLoggedIn, output, promptContext, sessionClient, userAgent, validate, type JsonOpt } from '../context.js';
import { CliError, EXIT } from '../main.js';
import { readStdin } from '../password.js';

interface LoginOpts extends JsonOpt {
  server?: string;
  email?: string;
  passwordStdin?: boolean;
}

async function askEmail(given: string | undefined): Promise<string> {
  if (given) return given;
  if (!interactive()) throw new CliError('--email is required when not running on a terminal', EXIT.usage);
  const { input } = await import('@inquirer/prompts');
  return input({ message: 'Email:', required: true }, promptContext());
}

async function askPassword(fromStdin: boolean | undefined, repeat: boolean): Promise<string> {
  if (fromStdin) return readStdin();
  if (!interactive()) {
    throw new CliError('no password: pipe it in with --password-stdin when not running on a terminal', EXIT.usage);
  }
  const { password } = await import('@inquirer/prompts');
  const first = await password({ message: 'Password:', mask: '*' }, promptContext());
  if (repeat && (await password({ message: 'Repeat password:', mask: '*' }, promptContext())) !== first) {
    throw new CliError('the passwords do not match', EXIT.usage);
  }
  return first;
}

/** Stores the new session and tells the user where they are logged in. */
async function loggedIn(client: WaitlistClient, user: User, opts: JsonOpt, verb: string) {
  await saveCredentials({ server: client.server, session: client.session!, email: user.email });
  const out = output(opts);
  out.success(`${verb} to ${client.server} as ${user.email}`);
  if (out.mode === 'json') out.json(user);
}

export async function signup(opts: LoginOpts & { name?: string }) {
  const { server } = await resolveCredentials(opts.server);
  const email = await askEmail(opts.email);
  const password = await askPassword(opts.passwordStdin, true);
  const body = validate(signupBody, { email, password, ...(opts.name !== undefined ? { name: opts.name } : {}) });
  const client = new WaitlistClient({ server, userAgent: userAgent() });
  await loggedIn(client, await client.signup(body), opts, 'Signed up and logged in');
}

export async function login(opts: LoginOpts) {
  const creds = await resolveCredentials(opts.server);
  const email = await askEmail(opts.email);
  const password = await askPassword(opts.passwordStdin, false);
  const body = validate(loginBody, { email, password });
  // Sending the stored session (same server only) lets the server end it: no stale session left behind.
  const client = new WaitlistClient({ server: creds.server, session: creds.source === 'file' ? creds.session : undefined, userAgent: userAgent() });
  let user: User;
  try {
    user = await client.login(body);
  } catch (err) {
    // A 401 here is a wrong email or password, not a missing session: exit 1, not 4.
    if (err instanceof ApiError && err.status === 401) throw new CliError(`${err.message} (${err.code})`, EXIT.error);
    throw err;
  }
  await loggedIn(client, user, opts, 'Logged in');
}

export async function logout(opts: JsonOpt) {
  const creds = await resolveCredentials();
  if (!creds.session) throw notLoggedIn();
  const client = new WaitlistClient({ server: creds.server, session: creds.session, userAgent: userAgent() });
  const out = output(opts);
  try {
    await client.logout();
  } catch (err) {
    // Already expired or revoked: there is nothing left to end on the server.
    if (!(err instanceof ApiError && err.status === 401)) throw err;
  }
  if (creds.source === 'file') await clearSession();
  out.success(`Logged out of ${creds.server}${creds.source === 'env' ? ' (the WAITLIST_SESSION token is revoked)' : ''}`);
  if (out.mode === 'json') out.json(null);
}

export async function whoami(opts: JsonOpt) {
  const client = await sessionClient();
  const user = await client.me();
  const out = output(opts);
  out.item(user);
  if (out.mode === 'table') {
    const creds = await resolveCredentials();
    const from = creds.source === 'env' ? 'WAITLIST_SESSION' : await credentialsPath();
    out.info(out.errColor.dim(`Logged in to ${client.server} (session from ${from})`));
  }
}
