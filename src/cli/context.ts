// What every API command needs once it runs: a logged-in client, output, prompts on stderr,
// local validation with the contract's schemas, and the delete confirmation rule.
import type { z } from 'zod';
import type { Page } from '../contract/types.js';
import { WaitlistClient } from '../client/index.js';
import { resolveCredentials } from './config.js';
import { CliError, EXIT } from './main.js';
import { Output } from './output.js';

export interface JsonOpt {
  json?: boolean;
}

/** Exit 4 with the hint every not-logged-in path shares. */
export const notLoggedIn = (why = 'not logged in') =>
  new CliError(`${why}: run \`waitlist login\` (or set WAITLIST_SESSION)`, EXIT.auth);

/** A client for the resolved server and session; exit 4 when there is no session at all. */
export async function sessionClient(): Promise<WaitlistClient> {
  const creds = await resolveCredentials();
  if (!creds.session) throw notLoggedIn();
  return new WaitlistClient({ server: creds.server, session: creds.session, userAgent: userAgent() });
}

export const userAgent = () => `waitlist-cli (node ${process.versions.node})`;

export const output = (opts: JsonOpt) => new Output({ json: opts.json });

/** Parses a request body with a contract schema; a usage error (exit 2) naming each bad field. */
export function validate<S extends z.ZodType>(schema: S, body: unknown, flags: Record<string, string> = {}): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => {
    const field = i.path.map(String).join('.');
    const flag = flags[field] ?? flags[String(i.path[0])] ?? (field ? `--${field}` : "");
    return flag ? `${flag}: ${i.message}` : i.message;
  });
  throw new CliError(lines.join('\n       '), EXIT.usage);
}

/** Whether prompts can be shown: stdin and stderr (where prompts are drawn) are terminals. */
export const interactive = () => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/** Prompt context: drawn on stderr so stdout keeps only data. */
export const promptContext = () => ({ output: process.stderr, clearPromptOnDone: false });

/**
 * The rule for destructive commands: --yes skips the question; on a terminal ask; otherwise refuse
 * (exit 2, nothing changed).
 */
export async function confirmDelete(what: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!interactive()) {
    throw new CliError(`refusing to delete ${what} without confirmation: pass --yes when not running interactively`, EXIT.usage);
  }
  const { confirm } = await import('@inquirer/prompts');
  const ok = await confirm({ message: `Delete ${what}?`, default: false }, promptContext());
  if (!ok) throw new CliError('cancelled: nothing was deleted', EXIT.error);
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
