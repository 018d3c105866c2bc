// What every API command needs once it runs: a logged-in client, output, prompts, local validation
// with the contract's schemas, and the delete confirmation rule. All of it reads the CliContext.
import type { z } from 'zod';
import type { WaitlistClient } from '../client/index.js';
import type { Page } from '../contract/types.js';
import { type Credentials, resolveCredentials } from './credentials.js';
import { CliError, EXIT } from './errors.js';
import { type CliContext, currentContext, userAgent } from './io.js';
import { Output } from './output.js';

export { userAgent };

export type { CliContext } from './io.js';

export interface JsonOpt {
  json?: boolean;
}

// Helpers take the context first. Each still accepts the older call without it (then it uses the
// context main() runs the command in), so run functions not yet moved keep working.
const isContext = (x: unknown): x is CliContext => typeof x === 'object' && x !== null && 'io' in x && 'prompter' in x;

/** Exit 4 with the hint that fits: not logged in at all, or logged in to another server. */
export function notLoggedIn(creds?: Credentials | string): CliError {
  if (typeof creds === 'string') return new CliError(`${creds}: run \`waitlist login\` (or set WAITLIST_SESSION)`, EXIT.auth);
  if (creds?.otherServer) {
    return new CliError(
      `the stored session belongs to ${creds.otherServer}, not ${creds.server}: run \`waitlist login --server ${creds.server}\` ` +
        '(or set WAITLIST_SESSION)',
      EXIT.auth,
    );
  }
  return new CliError('not logged in: run `waitlist login` (or set WAITLIST_SESSION)', EXIT.auth);
}

/** How long an API command waits for the server to start answering, unless WAITLIST_TIMEOUT says otherwise. */
export const DEFAULT_TIMEOUT_SECONDS = 30;
/** Node's fetch gives up waiting for response headers after 300 s on its own: a longer wait cannot be had. */
const MAX_TIMEOUT_SECONDS = 300;

/** WAITLIST_TIMEOUT in seconds (1–300; empty or unset: 30); anything else is a usage error (exit 2). */
export function timeoutSeconds(env: Record<string, string | undefined>): number {
  const raw = env.WAITLIST_TIMEOUT?.trim();
  if (!raw) return DEFAULT_TIMEOUT_SECONDS;
  const n = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_TIMEOUT_SECONDS)) {
    throw new CliError(`WAITLIST_TIMEOUT must be a number of seconds from 1 to ${MAX_TIMEOUT_SECONDS}, not '${raw}'`, EXIT.usage);
  }
  return n;
}

/** A client for a server, waiting at most WAITLIST_TIMEOUT seconds (default 30) for each answer to start. */
export function apiClient(ctx: CliContext, opts: { server: string; session?: string | undefined }): WaitlistClient {
  return ctx.client({ ...opts, timeoutMs: timeoutSeconds(ctx.env) * 1000 });
}

/** A client for the resolved server and session; exit 4 when there is no session at all. */
export async function sessionClient(ctx: CliContext = currentContext()): Promise<WaitlistClient> {
  const creds = await resolveCredentials(ctx.credentials, ctx.env);
  if (!creds.session) throw notLoggedIn(creds);
  ctx.session = creds;
  return apiClient(ctx, { server: creds.server, session: creds.session });
}

/** Output on the context's streams: a table on a terminal (or WAITLIST_FORCE_TTY=1), TSV otherwise. */
export function output(ctx: CliContext, opts?: JsonOpt): Output;
/** @deprecated pass the context first */
export function output(opts?: JsonOpt): Output;
export function output(a?: CliContext | JsonOpt, b?: JsonOpt): Output {
  const [ctx, opts] = isContext(a) ? [a, b ?? {}] : [currentContext(), a ?? {}];
  return new Output(
    {
      json: opts.json,
      stdoutTty: ctx.io.stdoutTty || Boolean(ctx.env.WAITLIST_FORCE_TTY),
      stderrTty: ctx.io.stderrTty,
      noColor: Boolean(ctx.env.NO_COLOR),
    },
    ctx.io.stdout,
    ctx.io.stderr,
  );
}

/**
 * Parses a request body with a contract schema; a usage error (exit 2) naming each bad field by the
 * flag it came from (`labels`; a field without one is named `--<field>`).
 */
export function validate<S extends z.ZodType>(schema: S, body: unknown, labels: Record<string, string> = {}): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => {
    const field = i.path.map(String).join('.');
    const label = labels[field] ?? labels[String(i.path[0])] ?? (field ? `--${field}` : '');
    return label ? `${label}: ${i.message}` : i.message;
  });
  throw new CliError(lines.join('\n       '), EXIT.usage);
}

/** Whether prompts can be shown: stdin and stderr (where prompts are drawn) are terminals. */
export const interactive = (ctx: CliContext = currentContext()) => ctx.io.stdinTty && ctx.io.stderrTty;

/**
 * The rule for destructive commands: --yes skips the question; on a terminal ask; otherwise refuse
 * (exit 2, nothing changed).
 */
export async function confirmDelete(ctx: CliContext, what: string, yes: boolean | undefined): Promise<void>;
/** @deprecated pass the context first */
export async function confirmDelete(what: string, yes: boolean | undefined): Promise<void>;
export async function confirmDelete(...args: [CliContext, string, boolean | undefined] | [string, boolean | undefined]): Promise<void> {
  const [ctx, what, yes] = args.length === 3 ? args : [currentContext(), ...args];
  if (yes) return;
  if (!interactive(ctx)) {
    throw new CliError(`refusing to delete ${what} without confirmation: pass --yes when not running interactively`, EXIT.usage);
  }
  if (!(await ctx.prompter.confirm(`Delete ${what}?`))) throw new CliError('cancelled: nothing was deleted', EXIT.error);
}

/** Every item of a paginated list, page by page (100 per request). */
export async function allPages<T>(fetchPage: (page: number) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const p = await fetchPage(page);
    items.push(...p.items);
    if (page >= p.totalPages || p.items.length === 0) return items;
  }
}
