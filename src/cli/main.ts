// The `waitlist` program: commander with lazily loaded subcommands, so `--help` loads no database,
// bcrypt or HTTP code. Exit codes: 0 ok, 1 error, 2 usage, 4 not logged in. Every command runs in a
// CliContext (streams, env, prompts, credentials, client factory): the process's, or a test's.
import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { registerServe } from './commands/serve.js';
import { registerAdmin } from './commands/admin.js';
import { registerAuth } from './commands/auth.js';
import { registerProject } from './commands/project.js';
import { registerKey } from './commands/key.js';
import { registerWebhook } from './commands/webhook.js';
import { registerEntry } from './commands/entry.js';
import { ApiError } from '../client/index.js';
import { CliError, EXIT } from './errors.js';
import { type CliContext, processContext, setCurrentContext } from './io.js';

export { CliError, EXIT } from './errors.js';

function version(): string {
  const require = createRequire(import.meta.url);
  return (require('../../package.json') as { version: string }).version;
}

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('waitlist')
    .description('Self-hostable waitlist: run the join server and manage projects, keys and entries')
    .version(version(), '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => void ctx.io.stdout.write(s), writeErr: (s) => void ctx.io.stderr.write(s) })
    .exitOverride();
  registerServe(program);
  registerAuth(program, ctx);
  registerProject(program, ctx);
  registerKey(program, ctx);
  registerWebhook(program, ctx);
  registerEntry(program, ctx);
  registerAdmin(program, ctx);
  program.addHelpText(
    'after',
    `
Examples:
  $ waitlist serve                                   # start a server on http://127.0.0.1:8080
  $ waitlist signup --server http://127.0.0.1:8080   # the first account bootstraps it
  $ waitlist project create --name "My App"
  $ waitlist key create --project my-app --name "landing page"
  $ waitlist entry list --project my-app --search ada
  $ waitlist entry export --project my-app --output subscribers.csv

Environment: WAITLIST_SERVER and WAITLIST_SESSION override the stored server and session (CI);
WAITLIST_TIMEOUT is how many seconds to wait for the server to answer (default 30); NO_COLOR turns colours off. Exit codes: 0 ok, 1 error, 2 usage, 4 not logged in.
Run \`waitlist <command> --help\` for a command's flags and examples.`,
  );
  return program;
}

/** Runs the CLI with argv (`[node, script, ...args]`) in a context; resolves with the exit code. */
export async function main(argv: string[], ctx: CliContext = processContext()): Promise<number> {
  setCurrentContext(ctx);
  const program = buildProgram(ctx);
  if (ctx.io.stdout === process.stdout) {
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      // `waitlist … | head`: the reader closed the pipe; that is not an error at all.
      if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      // A full disk (ENOSPC), a read-only descriptor (EBADF), an I/O error: the output is lost, say so in
      // one line. Nothing can be printed on stdout any more, so the command ends here.
      ctx.io.stderr.write(`error: cannot write to standard output: ${err.message}\n`);
      process.exit(EXIT.error);
    });
  }
  try {
    await program.parseAsync(unknownBeforeHelp(program, helpFor(program, jsonFirst(argv))));
    return EXIT.ok;
  } catch (err) {
    return report(ctx, err);
  }
}

/**
 * `waitlist --json project list` means `waitlist project list --json`: scripts put the flag either side
 * of the command. Only a leading --json (before the first command word) moves; a command without the
 * flag still refuses it.
 */
function jsonFirst(argv: string[]): string[] {
  const [node, script, ...args] = argv;
  let i = 0;
  while (args[i] === '--json') i++;
  if (i === 0 || i === args.length) return argv;
  return [node!, script!, ...args.slice(i), '--json'];
}

/**
 * `waitlist help entry import` means `waitlist entry import --help`: commander's help command looks at
 * its first word only, so it would show the `entry` group. The words are followed down the command
 * tree; a word that names no command there is left to commander's help command at that level (which
 * says so, exit 2), as is a first word that names no command at all.
 */
function helpFor(program: Command, argv: string[]): string[] {
  const [node, script, ...args] = argv;
  if (args[0] !== 'help' || args.length < 2) return argv;
  const path: string[] = [];
  let cmd = program;
  for (const word of args.slice(1)) {
    if (word.startsWith('-')) break;
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) {
      if (path.length === 0) return argv;
      return [node!, script!, ...path, 'help', word];
    }
    path.push(word);
    cmd = sub;
  }
  return path.length ? [node!, script!, ...path, '--help'] : argv;
}

/**
 * `waitlist bogus --help` (or `waitlist entry bogus --help`) is an unknown command, exit 2, not the
 * parent's help with exit 0: commander handles --help before it looks at the word. The words before
 * --help are followed down the command tree; when one names no command of a group, --help is dropped
 * and commander reports the unknown command (with its suggestion). Anything else is left as it is.
 */
function unknownBeforeHelp(program: Command, argv: string[]): string[] {
  const [node, script, ...args] = argv;
  const at = args.findIndex((a) => a === '--help' || a === '-h');
  if (at < 0 || args[0] === 'help') return argv;
  let cmd = program;
  for (const word of args.slice(0, at)) {
    if (word.startsWith('-') || !cmd.commands.length) return argv; // options, or a command's own arguments
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) return [node!, script!, ...args.filter((_, i) => i !== at)];
    cmd = sub;
  }
  return argv;
}

/** Prints an error the way every command shares and picks its exit code. */
function report(ctx: CliContext, err: unknown): number {
  const say = (s: string) => void ctx.io.stderr.write(s);
  if (err instanceof CommanderError) {
    // --help, --version and `help` exit 0; a group without its subcommand shows its usage, exit 2.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof ApiError) return reportApiError(ctx, err);
  if ((err as Error | undefined)?.name === 'ExitPromptError') {
    say('\nerror: cancelled\n'); // Ctrl-C at a prompt: the same error: line as every failure
    return EXIT.error;
  }
  if (err instanceof CliError) {
    say(`error: ${err.message}\n`);
    return err.exitCode;
  }
  const e = err as { message?: string } | undefined;
  say(`error: ${e?.message ?? String(err)}\n`);
  return EXIT.error;
}

/** A server error as `error: <message> (<code>)` plus its issues; exit 4 when the session was refused. */
function reportApiError(ctx: CliContext, err: ApiError): number {
  const transport = err.code === 'network' || err.code === 'timeout';
  const hint = err.code === 'timeout' ? ' (set WAITLIST_TIMEOUT, in seconds, to wait longer)' : '';
  const lines = [`error: ${err.message}${transport ? hint : ` (${err.code})`}`];
  for (const i of err.issues) lines.push(`  ${i.path || '(body)'}: ${i.message}`);
  let code: number = EXIT.error;
  if (err.status === 401) {
    code = EXIT.auth;
    lines.push(
      ctx.session?.source === 'env'
        ? `The server refused the WAITLIST_SESSION token (expired, revoked or mistyped): set a valid session token.`
        : 'Your session has expired or was revoked: run `waitlist login`.',
    );
  }
  ctx.io.stderr.write(lines.join('\n') + '\n');
  return code;
}
