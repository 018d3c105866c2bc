// The `waitlist` program: commander with lazily loaded subcommands, so `--help` loads no database,
// bcrypt or HTTP code. Exit codes: 0 ok, 1 error, 2 usage, 4 not logged in.
import { Command, CommanderError } from 'commander';
import { createRequire } from 'node:module';
import { registerServe } from './commands/serve.js';
import { registerAdmin } from './commands/admin.js';

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
  registerAdmin(program);
  return program;
}

/** Runs the CLI with argv; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return EXIT.ok;
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
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
