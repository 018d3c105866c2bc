// The `waitlist` program: commander with lazily loaded subcommands, so `--help` loads no database,
// bcrypt or HTTP code. Exit codes: 0 ok, 1 error, 2 usage, 4 not logged in.
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

export const EXIT = { ok: 0, error: 1, usage: 2, auth: 4 } as const;

/** Thrown by commands to end with a message on stderr and a given exit code. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT.error) {
    super(message);
  }
}

function version(): string {
  const require = createRequire(import.meta.url);
  return (require('../../package.json') as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command('waitlist')
    .description('Self-hostable waitlist: run the join server and manage projects, keys and entries')
    .version(version(), '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerServe(program);
  registerAuth(program);
  registerProject(program);
  registerKey(program);
  registerWebhook(program);
  registerEntry(program);
  registerAdmin(program);
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
NO_COLOR turns colours off. Exit codes: 0 ok, 1 error, 2 usage, 4 not logged in.
Run \`waitlist <command> --help\` for a command's flags and examples.`,
  );
  return program;
}

/** Runs the CLI with argv; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  // `waitlist … | head`: the reader closed the pipe; that is not an error worth a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof ApiError) return reportApiError(err);
    if ((err as Error | undefined)?.name === 'ExitPromptError') {
      process.stderr.write('\ncancelled\n');
      return EXIT.error;
    }
    if (err instanceof CliError) {
      process.stderr.write(`error: ${err.message}\n`);
      return err.exitCode;
    }
    const e = err as { code?: string; message?: string };
    process.stderr.write(`error: ${e.message ?? String(err)}\n`);
    return EXIT.error;
  }
}

/** A server error as `error: <message> (<code>)` plus its issues; exit 4 when the session is not valid. */
function reportApiError(err: ApiError): number {
  const lines = [`error: ${err.message}${err.code === 'network' ? '' : ` (${err.code})`}`];
  for (const i of err.issues) lines.push(`  ${i.path || '(body)'}: ${i.message}`);
  if (err.status === 401) {
    lines.push('Your session has expired or was revoked: run `waitlist login`.');
    process.stderr.write(lines.join('\n') + '\n');
    return EXIT.auth;
  }
  process.stderr.write(lines.join('\n') + '\n');
  return EXIT.error;
}
