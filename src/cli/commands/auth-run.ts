// Bodies of signup, login, logout and whoami, loaded only when one runs.
import { ApiError, type WaitlistClient } from '../../client/index.js';
import { loginBody, signupBody } from '../../contract/schemas.js';
import type { User } from '../../contract/types.js';
import { resolveCredentials } from '../credentials.js';
import { apiClient, type CliContext, interactive, type JsonOpt, output, sessionClient, validate } from '../context.js';
import { CliError, EXIT } from '../errors.js';
import { PASSWORD_LABEL, readPassword } from '../password.js';

interface LoginOpts extends JsonOpt {
  server?: string;
  email?: string;
  passwordStdin?: boolean;
}

async function askEmail(ctx: CliContext, given: string | undefined): Promise<string> {
  if (given) return given;
  if (!interactive(ctx)) throw new CliError('--email is required when not running on a terminal', EXIT.usage);
  return ctx.prompter.input('Email:');
}

/** Stores the new session and tells the user where they are logged in. */
async function loggedIn(ctx: CliContext, client: WaitlistClient, user: User, opts: JsonOpt, verb: string) {
  await ctx.credentials.save({ server: client.server, session: client.session!, email: user.email });
  const out = output(ctx, opts);
  out.success(`${verb} to ${client.server} as ${user.email}`);
  if (out.mode === 'json') out.json(user);
}

export async function signup(ctx: CliContext, opts: LoginOpts & { name?: string }) {
  const { server } = await resolveCredentials(ctx.credentials, ctx.env, opts.server);
  const client = apiClient(ctx, { server }); // before the prompts: a bad WAITLIST_TIMEOUT stops here
  const email = await askEmail(ctx, opts.email);
  const password = await readPassword(ctx, opts.passwordStdin, true);
  const body = validate(signupBody, { email, password, ...(opts.name !== undefined ? { name: opts.name } : {}) }, PASSWORD_LABEL);
  await loggedIn(ctx, client, await client.signup(body), opts, 'Signed up and logged in');
}

export async function login(ctx: CliContext, opts: LoginOpts) {
  const creds = await resolveCredentials(ctx.credentials, ctx.env, opts.server);
  // Sending the stored session (same server only) lets the server end it: no stale session left behind.
  const client = apiClient(ctx, { server: creds.server, session: creds.source === 'file' ? creds.session : undefined });
  const email = await askEmail(ctx, opts.email);
  const password = await readPassword(ctx, opts.passwordStdin, false);
  const body = validate(loginBody, { email, password }, PASSWORD_LABEL);
  let user: User;
  try {
    user = await client.login(body);
  } catch (err) {
    // A 401 here is a wrong email or password, not a missing session: exit 1, not 4.
    if (err instanceof ApiError && err.status === 401) throw new CliError(`${err.message} (${err.code})`, EXIT.error);
    throw err;
  }
  await loggedIn(ctx, client, user, opts, 'Logged in');
}

/** Ends the session on the server and forgets it; with no session there is nothing to do (exit 0). */
export async function logout(ctx: CliContext, opts: JsonOpt) {
  const creds = await resolveCredentials(ctx.credentials, ctx.env);
  const out = output(ctx, opts);
  if (!creds.session) {
    if (out.mode === 'json') out.json(null);
    return;
  }
  const client = apiClient(ctx, { server: creds.server, session: creds.session });
  try {
    await client.logout();
  } catch (err) {
    // Already expired or revoked: there is nothing left to end on the server.
    if (!(err instanceof ApiError && err.status === 401)) {
      // The server is down, silent or failing: forget the session here anyway (that is what was asked),
      // and say that it still works on the server until it expires (exit 1, so scripts notice).
      if (creds.source === 'file') await ctx.credentials.clearSession();
      const why = err instanceof ApiError && err.status > 0 ? `${err.message} (${err.code})` : (err as Error).message;
      const what = creds.source === 'file' ? 'the stored session is deleted here, but it' : 'the WAITLIST_SESSION token';
      throw new CliError(`${why}: ${what} was not revoked on the server and stays valid there until it expires`, EXIT.error);
    }
  }
  if (creds.source === 'file') await ctx.credentials.clearSession();
  out.success(`Logged out of ${creds.server}${creds.source === 'env' ? ' (the WAITLIST_SESSION token is revoked)' : ''}`);
  if (out.mode === 'json') out.json(null);
}

export async function whoami(ctx: CliContext, opts: JsonOpt) {
  const client = await sessionClient(ctx);
  const user = await client.me();
  const out = output(ctx, opts);
  out.item(user);
  if (out.mode === 'table') {
    const from = ctx.session?.source === 'env' ? 'WAITLIST_SESSION' : await ctx.credentials.path();
    out.info(out.errColor.dim(`Logged in to ${client.server} (session from ${from})`));
  }
}
