// Runs the built CLI (`node bin/waitlist.js …`) as a process with its own HOME and config directory,
// so every test has its own credentials file and nothing leaks in from the machine's environment.
import { execa } from 'execa';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, postJoin, uniqueEmail } from '../helpers/server.js';

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
}

/** Runs `waitlist <args>`; never rejects. stdin is a pipe (not a TTY), stdout/stderr are captured. */
export async function cli(args: string[], opts: CliOptions = {}): Promise<RunResult> {
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

/** Joins `n` subscribers to a project with `key`, a few at a time. */
export async function seedEntries(server: string, slug: string, key: string, n: number, tag = 'sub') {
  const emails: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = Array.from({ length: Math.min(10, n - i) }, (_, j) => `${tag}-${i + j}@example.com`);
    const results = await Promise.all(batch.map((email, j) => postJoin(server, slug, key, { email, name: `Sub ${i + j}`, metadata: { n: i + j } })));
    for (const r of results) if (r.status !== 201) throw new Error(`join failed: ${r.status} ${r.text}`);
    emails.push(...batch);
  }
  return emails;
}
