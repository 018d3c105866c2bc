// The one way the CLI reads a secret: a hidden prompt on a terminal (drawn on stderr), or stdin with
// --password-stdin; never a flag.
import { CliError, EXIT } from './errors.js';
import type { CliContext } from './io.js';

/** Reads all of stdin and strips one trailing newline. */
export async function readStdin(ctx: CliContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of ctx.io.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** The password from stdin (when asked) or a hidden prompt, twice when `repeat`; exit 2 when neither can be. */
export async function readPassword(ctx: CliContext, fromStdin: boolean | undefined, repeat: boolean): Promise<string> {
  if (fromStdin) return readStdin(ctx);
  if (!(ctx.io.stdinTty && ctx.io.stderrTty)) {
    throw new CliError('no password: pipe it in with --password-stdin when not running on a terminal', EXIT.usage);
  }
  const first = await ctx.prompter.password('Password:');
  if (repeat && (await ctx.prompter.password('Repeat password:')) !== first) {
    throw new CliError('the passwords do not match', EXIT.usage);
  }
  return first;
}

/** What names the password in validation messages (there is no --password flag). */
export const PASSWORD_LABEL = { password: 'password' };
