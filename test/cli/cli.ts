// Runs the CLI for tests. `cli()` runs it in-process: `main()` from the built dist/ with a test
// CliContext (memory streams, the env given and nothing else, a credentials directory under its own
// HOME, scripted prompt answers), against a real server over HTTP. `cliProcess()` spawns
// `node bin/waitlist.js …` for what only a process shows (start-up, signals, exit status, HOME).
import { execa } from 'execa';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { beforeAll } from 'vitest';
import { BIN, postJoin, ROOT, type StartOptions, type TestServer, uniqueEmail, useServer } from '../helpers/server.js';

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A fresh home directory; its config dir is `<home>/.config`. */
export function freshHome(): string {
  return mkdtempSync(join(tmpdir(), 'waitlist-cli-home-'));
}

export interface CliOptions {
  home?: string;
  env?: Record<string, string>;
  input?: string;
  /** In-process only: pretend stdin, stdout and stderr are terminals; prompts take `answers` in order. */
  tty?: boolean;
  answers?: (string | boolean)[];
}

// Imported from dist/ (what bin/waitlist.js runs); loaded once per test file.
type Dist = {
  main: typeof import('../../src/cli/main.js').main;
  fileCredentials: typeof import('../../src/cli/credentials.js').fileCredentials;
  processContext: typeof import('../../src/cli/io.js').processContext;
};
let dist: Promise<Dist> | undefined;
const loadDist = () =>
  (dist ??= Promise.all([
    import(join(ROOT, 'dist/cli/main.js')),
    import(join(ROOT, 'dist/cli/credentials.js')),
    import(join(ROOT, 'dist/cli/io.js')),
  ]).then(([m, c, i]) => ({ main: m.main, fileCredentials: c.fileCredentials, processContext: i.processContext })));

const collect = () => {
  const s = new PassThrough();
  let text = '';
  s.on('data', (c: Buffer) => (text += c.toString()));
  return { stream: s, text: () => text };
};

/** Runs `waitlist <args>` in-process; never rejects. stdin is a pipe holding `input` unless `tty`. */
export async function cli(args: string[], opts: CliOptions = {}): Promise<RunResult> {
  const { main, fileCredentials, processContext } = await loadDist();
  const home = opts.home ?? freshHome();
  const out = collect();
  const err = collect();
  const answers = [...(opts.answers ?? [])];
  const next = (message: string) => {
    if (!answers.length) throw new Error(`unexpected prompt: ${message}`);
    err.stream.write(`? ${message}\n`);
    return answers.shift()!;
  };
  const tty = Boolean(opts.tty);
  const exitCode = await main(['node', 'waitlist', ...args], {
    io: { stdin: Readable.from([opts.input ?? '']), stdout: out.stream, stderr: err.stream, stdinTty: tty, stdoutTty: tty, stderrTty: tty },
    env: { ...opts.env },
    prompter: {
      input: async (m: string) => String(next(m)),
      password: async (m: string) => String(next(m)),
      confirm: async (m: string) => next(m) === true,
    },
    credentials: fileCredentials(join(home, '.config', 'waitlist')),
    client: processContext().client,
  });
  await new Promise((r) => setImmediate(r));
  if (answers.length) throw new Error(`prompts not asked: ${answers.join(', ')}`);
  return { exitCode, stdout: out.text(), stderr: err.text() };
}

/** Runs `node bin/waitlist.js <args>` as a process with its own HOME; never rejects. */
export async function cliProcess(args: string[], opts: Omit<CliOptions, 'tty' | 'answers'> = {}): Promise<RunResult> {
  const home = opts.home ?? freshHome();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    ...opts.env,
  };
  const r = await execa('node', [BIN, ...args], {
    env,
    extendEnv: false,
    reject: false,
    input: opts.input ?? '',
    stripFinalNewline: false,
  });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Runs and parses stdout as JSON, failing loudly with stderr when the command failed. */
export async function cliJson<T = any>(args: string[], opts: CliOptions = {}): Promise<T> {
  const r = await cli([...args, '--json'], opts);
  if (r.exitCode !== 0) throw new Error(`waitlist ${args.join(' ')} exited ${r.exitCode}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

export const credentialsFile = (home: string) => join(home, '.config', 'waitlist', 'credentials.json');

export const storedSession = (home: string): string =>
  (JSON.parse(readFileSync(credentialsFile(home), 'utf8')) as { session: string }).session;

/** Signs up through the CLI into `home` (the server must be open for sign-up or empty). */
export async function cliSignup(server: string, home: string, email = uniqueEmail('cli'), password = 'correct horse battery') {
  const r = await cli(['signup', '--server', server, '--email', email, '--password-stdin'], { home, input: password });
  if (r.exitCode !== 0) throw new Error(`signup failed: ${r.stderr}`);
  return { email, password };
}

export interface CliUser {
  /** The server (see useServer). */
  srv: TestServer;
  /** The user's HOME, with the stored session. */
  readonly home: string;
  /** Options that run the CLI as this user: `cli(args, as())`. */
  as: () => CliOptions;
}

/**
 * For a test file: a server (useServer) and a CLI user signed up on it in a HOME of its own; with `project`,
 * that user's project of this name and slug. Read `home` and call `as()` inside tests and later hooks.
 */
export function useCliUser(opts: StartOptions = {}, project?: { name: string; slug: string }): CliUser {
  const srv = useServer(opts);
  let home = '';
  beforeAll(async () => {
    home = freshHome();
    await cliSignup(srv.url, home);
    if (project) await cliJson(['project', 'create', '--name', project.name, '--slug', project.slug], { home });
  });
  return {
    srv,
    get home() {
      return home;
    },
    as: () => ({ home }),
  };
}

/** Joins `n` subscribers to a project with `key`, a few at a time. */
export async function seedEntries(server: string, slug: string, key: string, n: number, tag = 'sub') {
  const emails: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, (_, j) => `${tag}-${i + j}@example.com`);
    const results = await Promise.all(
      batch.map((email, j) => postJoin(server, slug, key, { email, name: `Sub ${i + j}`, metadata: { n: i + j } })),
    );
    for (const r of results) if (r.status !== 201) throw new Error(`join failed: ${r.status} ${r.text}`);
    emails.push(...batch);
  }
  return emails;
}
