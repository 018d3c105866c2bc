// The context every command runs in: streams (with whether each is a terminal), the environment,
// prompts, the credentials store and a client factory. `processContext()` is the real one; tests
// build their own (memory streams, a temp credentials directory, scripted answers) and run commands
// in-process. Light on purpose: main.ts loads it with --help, so everything heavy is imported lazily.
import { WaitlistClient } from '../client/index.js';
import { type Credentials, type CredentialStore, fileCredentials } from './credentials.js';

export interface Io {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdinTty: boolean;
  stdoutTty: boolean;
  stderrTty: boolean;
}

/** Questions for a person at a terminal (drawn on stderr so stdout keeps only data). */
export interface Prompter {
  input(message: string): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string): Promise<boolean>;
}

export interface CliContext {
  io: Io;
  env: Record<string, string | undefined>;
  prompter: Prompter;
  credentials: CredentialStore;
  client(opts: { server: string; session?: string | undefined; timeoutMs?: number | undefined }): WaitlistClient;
  /** The credentials of the last session client made, so a 401 can say which session was refused. */
  session?: Credentials;
}

export const userAgent = () => `waitlist-cli (node ${process.versions.node})`;

/** @inquirer/prompts on the given streams, loaded on first use. */
export function inquirerPrompter(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): Prompter {
  const where = () => ({ input: input as NodeJS.ReadStream, output: output as NodeJS.WriteStream, clearPromptOnDone: false });
  const lib = () => import('@inquirer/prompts');
  return {
    input: async (message) => (await lib()).input({ message, required: true }, where()),
    password: async (message) => (await lib()).password({ message, mask: '*' }, where()),
    confirm: async (message) => (await lib()).confirm({ message, default: false }, where()),
  };
}

/** The context of the real program: process streams and env, the user's credentials file. */
export function processContext(): CliContext {
  const io: Io = {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    stdinTty: Boolean(process.stdin.isTTY),
    stdoutTty: Boolean(process.stdout.isTTY),
    stderrTty: Boolean(process.stderr.isTTY),
  };
  return {
    io,
    env: process.env,
    prompter: inquirerPrompter(process.stdin, process.stderr),
    credentials: fileCredentials(),
    client: (o) => new WaitlistClient({ ...o, userAgent: userAgent() }),
  };
}

let current: CliContext | undefined;

/** Set by main() for the command it runs. */
export function setCurrentContext(ctx: CliContext): void {
  current = ctx;
}

/**
 * The context of the command running now: for run functions written before they took one (they keep
 * working during the move; new code takes `ctx` as its first parameter instead).
 */
export function currentContext(): CliContext {
  current ??= processContext();
  return current;
}
