// The CLI when the network or the machine lets it down: a server that accepts the connection and never
// answers (WAITLIST_TIMEOUT), a slow answer that must not be cut (export body, import result), a server
// that goes away in the middle of `entry list --all`, and stdout that cannot be written. A real server
// behind a proxy that misbehaves on request (test/cli/proxy.ts).
import { execa } from 'execa';
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/server.js';
import { cli, cliJson, credentialsFile, freshHome, seedEntries, storedSession, useCliUser } from './cli.js';
import { useProxy } from './proxy.js';

const N = 12;
const user = useCliUser({}, { name: 'Faults', slug: 'faults' });
const { srv, as } = user;
const proxy = useProxy(() => srv.url);
let emails: string[];
beforeAll(async () => {
  const key = await cliJson(['key', 'create', '--project', 'faults', '--name', 'seed'], as());
  emails = await seedEntries(srv.url, 'faults', key.key, N);
});

/** The CLI pointed at the proxy with the user's session (no credentials file involved). */
const viaProxy = (env: Record<string, string> = {}) => ({
  env: { WAITLIST_SERVER: proxy.url, WAITLIST_SESSION: storedSession(user.home), ...env },
});

describe('WAITLIST_TIMEOUT: waiting for the server to answer', () => {
  it('a server that never answers: a one-line error after WAITLIST_TIMEOUT seconds, exit 1, nothing on stdout', {
    timeout: 20_000,
  }, async () => {
    proxy.rule = () => 'silent';
    try {
      for (const args of [['whoami'], ['project', 'list', '--json'], ['entry', 'export', '--project', 'faults']]) {
        const started = Date.now();
        const r = await cli(args, viaProxy({ WAITLIST_TIMEOUT: '1' }));
        expect(Date.now() - started, args.join(' ')).toBeLessThan(5_000);
        expect(r, args.join(' ')).toEqual({
          exitCode: 1,
          stdout: '',
          stderr: `error: the server at ${proxy.url} did not answer within 1 s (set WAITLIST_TIMEOUT, in seconds, to wait longer)\n`,
        });
      }
      // login and signup too (they talk to the server before there is a session)
      const login = await cli(['login', '--server', proxy.url, '--email', 'a@example.com', '--password-stdin'], {
        input: 'a long password',
        env: { WAITLIST_TIMEOUT: '1' },
      });
      expect(login.exitCode).toBe(1);
      expect(login.stderr).toMatch(/^error: the server at .+ did not answer within 1 s/);
    } finally {
      proxy.rule = () => 'pass';
    }
  });

  it('logout from a server that never answers still deletes the stored session (exit 1, not revoked there)', {
    timeout: 20_000,
  }, async () => {
    const home = freshHome();
    mkdirSync(dirname(credentialsFile(home)), { recursive: true });
    writeFileSync(credentialsFile(home), JSON.stringify({ server: proxy.url, session: storedSession(user.home) }));
    proxy.rule = () => 'silent';
    try {
      const r = await cli(['logout'], { home, env: { WAITLIST_TIMEOUT: '1' } });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe(
        `error: the server at ${proxy.url} did not answer within 1 s: the stored session is deleted here, but it was not revoked on the server and stays valid there until it expires\n`,
      );
      expect(JSON.parse(readFileSync(credentialsFile(home), 'utf8'))).toEqual({ server: proxy.url });
    } finally {
      proxy.rule = () => 'pass';
    }
  });

  it('a bad WAITLIST_TIMEOUT is a usage error (exit 2) naming it; empty means the default', async () => {
    for (const bad of ['abc', '0', '-5', '301', '1e3']) {
      const r = await cli(['whoami'], viaProxy({ WAITLIST_TIMEOUT: bad }));
      expect(r.exitCode, bad).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`error: WAITLIST_TIMEOUT must be a number of seconds from 1 to 300, not '${bad}'\n`);
    }
    expect((await cli(['whoami'], viaProxy({ WAITLIST_TIMEOUT: '' }))).exitCode).toBe(0);
    expect((await cli(['whoami'], viaProxy({ WAITLIST_TIMEOUT: '2.5' }))).exitCode).toBe(0);
  });

  it('bounds only the wait for the answer to start: a slow export body is not cut', async () => {
    // 2 s, not 1: the project lookup before the export must answer within it on a loaded CI machine.
    proxy.rule = (req) => (req.url?.includes('/export') ? { holdBodyMs: 4_000 } : 'pass');
    try {
      const r = await cli(['entry', 'export', '--project', 'faults', '--format', 'ndjson'], viaProxy({ WAITLIST_TIMEOUT: '2' }));
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.trimEnd().split('\n')).toHaveLength(N);
    } finally {
      proxy.rule = () => 'pass';
    }
  });

  it('entry import waits for its answer however long the server takes to process the upload', async () => {
    const file = join(user.home, 'slow.csv');
    writeFileSync(file, 'email,name\nslow-1@example.com,Slow\n');
    proxy.rule = (req) => (req.url?.includes('/import') ? { holdHeadersMs: 4_000 } : 'pass');
    try {
      const r = await cli(['entry', 'import', '--project', 'faults', '--file', file, '--json'], viaProxy({ WAITLIST_TIMEOUT: '2' }));
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ imported: 1 });
      emails.push('slow-1@example.com');
    } finally {
      proxy.rule = () => 'pass';
    }
  });
});

describe('entry list --all when the server goes away half-way', () => {
  it('prints nothing on stdout (JSON, TSV or table) unless every page came in', async () => {
    const args = ['entry', 'list', '--project', 'faults', '--all', '--limit', '5'];
    const tty = { WAITLIST_FORCE_TTY: '1', NO_COLOR: '1' };
    proxy.rule = (req) => (/[?&]page=2\b/.test(req.url ?? '') ? 'cut' : 'pass');
    try {
      for (const [mode, extra, env] of [
        ['json', ['--json'], {}],
        ['tsv', [], {}],
        ['table', [], tty],
      ] as const) {
        proxy.seen.length = 0;
        const r = await cli([...args, ...extra], viaProxy(env));
        expect(
          proxy.seen.some((s) => /[?&]page=1\b/.test(s)),
          mode,
        ).toBe(true); // page 1 did come in
        expect(r.exitCode, mode).toBe(1);
        expect(r.stdout, mode).toBe('');
        expect(r.stderr, mode).toMatch(/^error: cannot reach the server at /);
      }
    } finally {
      proxy.rule = () => 'pass';
    }
    // The same walk through a healthy line prints every entry once.
    const all = await cliJson(args, viaProxy());
    expect(all.map((e: { email: string }) => e.email).sort()).toEqual([...emails].sort());
    const tsv = await cli(args, viaProxy());
    expect(tsv.stdout.trimEnd().split('\n')).toHaveLength(emails.length);
  });
});

describe('stdout that cannot be written', () => {
  const env = () => ({ PATH: process.env.PATH ?? '', HOME: user.home, XDG_CONFIG_HOME: join(user.home, '.config') });

  it('a failed write (here EBADF: stdout opened read-only; ENOSPC on a full disk alike) is one line on stderr, exit 1', async () => {
    const file = join(user.home, 'read-only-stdout');
    writeFileSync(file, '');
    for (const args of [
      ['project', 'list', '--json'],
      ['entry', 'list', '--project', 'faults'],
      ['entry', 'export', '--project', 'faults'],
    ]) {
      // `1<file`: stdout is the file opened for reading only, so every write fails.
      const r = await execa('bash', ['-c', 'f="$1"; shift; exec node "$@" 1<"$f"', 'bash', file, BIN, ...args], {
        env: env(),
        extendEnv: false,
        reject: false,
      });
      expect(r.exitCode, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toBe('error: cannot write to standard output: EBADF: bad file descriptor, write');
    }
  });

  it('a failed export -o removes a partial file it wrote, never what a symbolic link points at or the link', async () => {
    const link = join(user.home, 'full.csv');
    symlinkSync('/dev/full', link);
    const r = await execa('node', [BIN, 'entry', 'export', '--project', 'faults', '-o', link], {
      env: env(),
      extendEnv: false,
      reject: false,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: export interrupted: ENOSPC/);
    expect(lstatSync(link).isSymbolicLink()).toBe(true); // it removed the link (and as root, -o /dev/full removed the device)
    expect(lstatSync('/dev/full').isCharacterDevice()).toBe(true);
  });

  it('a reader that closed the pipe (`| head`) still ends quietly with exit 0', async () => {
    // `true` exits at once, long before node has started: the first write meets a closed pipe (EPIPE).
    for (const args of [
      ['project', 'list', '--json'],
      ['entry', 'export', '--project', 'faults'],
    ]) {
      const r = await execa('bash', ['-c', 'node "$@" | true; exit "$PIPESTATUS"', 'bash', BIN, ...args], {
        env: env(),
        extendEnv: false,
        reject: false,
      });
      expect({ exitCode: r.exitCode, stderr: r.stderr }, args.join(' ')).toEqual({ exitCode: 0, stderr: '' });
    }
  });
});
