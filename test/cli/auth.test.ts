// signup / login / logout / whoami, the credentials file, env-var sessions for CI, exit code 4.
// In-process against a real server (spawned once); the CI run with an empty HOME is a real process.
import { statSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uniqueEmail, useServer } from '../helpers/server.js';
import { cli, cliJson, cliProcess, cliSignup, credentialsFile, freshHome, storedSession } from './cli.js';

const srv = useServer({ args: ['--open-signup'] });

/** http://127.0.0.1:<a port that was free a moment ago>: connections to it are refused. */
async function closedPortUrl(): Promise<string> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return `http://127.0.0.1:${port}`;
}

describe('signup and login', () => {
  it('signs up, stores the session with mode 0600, and whoami shows the user', async () => {
    const home = freshHome();
    const email = uniqueEmail('signup');
    const r = await cli(['signup', '--server', srv.url, '--email', email, '--name', 'Ada', '--password-stdin', '--json'], {
      home,
      input: 'correct horse battery\n',
    });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ email, name: 'Ada', userId: expect.stringMatching(/^usr_/) });
    expect(r.stderr).toContain(`as ${email}`);

    const file = credentialsFile(home);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    expect(stored).toMatchObject({ server: srv.url, session: expect.any(String) });
    expect(stored.session.length).toBeGreaterThanOrEqual(22);

    const me = await cliJson(['whoami'], { home });
    expect(me).toMatchObject({ email, name: 'Ada' });
  });

  it('a command that only reads the credentials leaves no world-readable directory behind (0700)', async () => {
    const home = freshHome();
    const r = await cli(['project', 'list'], { home });
    expect(r.exitCode).toBe(4); // not logged in
    expect(statSync(dirname(credentialsFile(home))).mode & 0o777).toBe(0o700);
  });

  it('logs in with --password-stdin; a wrong password exits 1 and stores nothing', async () => {
    const { email, password } = await cliSignup(srv.url, freshHome());
    const home = freshHome();
    const bad = await cli(['login', '--server', srv.url, '--email', email, '--password-stdin'], { home, input: 'wrong password' });
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^error: .+ \(unauthorized\)/);
    expect(existsSync(credentialsFile(home))).toBe(false);

    const ok = await cli(['login', '--server', srv.url, '--email', email, '--password-stdin', '--json'], { home, input: password });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ email });
    expect(statSync(credentialsFile(home)).mode & 0o777).toBe(0o600);

    // Logging in again replaces the stored session and ends the old one on the server.
    const first = storedSession(home);
    expect((await cli(['login', '--server', srv.url, '--email', email, '--password-stdin'], { home, input: password })).exitCode).toBe(0);
    expect(storedSession(home)).not.toBe(first);
    const stale = await cli(['whoami'], { env: { WAITLIST_SERVER: srv.url, WAITLIST_SESSION: first } });
    expect(stale.exitCode).toBe(4);
  });

  it('refuses to prompt off a terminal and has no --password flag (exit 2)', async () => {
    const noEmail = await cli(['login', '--server', srv.url, '--password-stdin'], { input: 'x' });
    expect(noEmail.exitCode).toBe(2);
    expect(noEmail.stderr).toContain('--email');
    const noPassword = await cli(['login', '--server', srv.url, '--email', 'a@example.com']);
    expect(noPassword.exitCode).toBe(2);
    expect(noPassword.stderr).toContain('--password-stdin');
    const flag = await cli(['login', '--server', srv.url, '--email', 'a@example.com', '--password', 'secret']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain("unknown option '--password'");
  });

  it('validates sign-up input locally with the contract schema (exit 2), naming no --password flag', async () => {
    const r = await cli(['signup', '--server', srv.url, '--email', 'not-an-email', '--password-stdin'], { input: 'short' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--email: Invalid email address');
    expect(r.stderr).toContain('password: Password must be at least 8 characters');
    expect(r.stderr).not.toMatch(/--password\b(?!-stdin)/);
  });

  it('on a terminal, prompts for email and password (twice at sign-up) on stderr', async () => {
    const home = freshHome();
    const email = uniqueEmail('prompted');
    const r = await cli(['signup', '--server', srv.url], { home, tty: true, answers: [email, 'a long password', 'a long password'] });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\? Email:\n\? Password:\n\? Repeat password:\n/);
    expect(r.stdout).toBe('');
    const mismatch = await cli(['signup', '--server', srv.url], {
      home: freshHome(),
      tty: true,
      answers: [uniqueEmail(), 'a long password', 'another one!'],
    });
    expect(mismatch.exitCode).toBe(2);
    expect(mismatch.stderr).toContain('the passwords do not match');
    const login = await cli(['login', '--server', srv.url], { home: freshHome(), tty: true, answers: [email, 'a long password'] });
    expect(login.exitCode, login.stderr).toBe(0);
  });
});

describe('a damaged credentials file', () => {
  it('counts as not logged in (exit 4), and login writes over it', async () => {
    const { email, password } = await cliSignup(srv.url, freshHome());
    for (const damaged of [
      '{"server":123,"session":5}',
      '{"server":"http://x","session":["a"]}',
      '{bad',
      '[1,2]',
      '{"server":"garbage","session":"abc"}',
    ]) {
      const home = freshHome();
      mkdirSync(dirname(credentialsFile(home)), { recursive: true });
      writeFileSync(credentialsFile(home), damaged);
      const who = await cli(['whoami'], { home });
      expect(who, damaged).toEqual({
        exitCode: 4,
        stdout: '',
        stderr: 'error: not logged in: run `waitlist login` (or set WAITLIST_SESSION)\n',
      });
      expect((await cli(['logout'], { home })).exitCode, damaged).toBe(0); // nothing to end
      const login = await cli(['login', '--server', srv.url, '--email', email, '--password-stdin'], { home, input: password });
      expect(login.exitCode, `${damaged}: ${login.stderr}`).toBe(0);
      expect(JSON.parse(readFileSync(credentialsFile(home), 'utf8')), damaged).toEqual({
        server: srv.url,
        session: expect.any(String),
        email,
      });
      expect((await cliJson(['whoami'], { home })).email, damaged).toBe(email);
    }
  });
});

describe('logout and exit code 4', () => {
  it('logout revokes the session on the server and deletes the stored one', async () => {
    const home = freshHome();
    await cliSignup(srv.url, home);
    const token = storedSession(home);
    const out = await cli(['logout'], { home });
    expect(out.exitCode).toBe(0);
    expect(out.stdout).toBe('');
    expect(JSON.parse(readFileSync(credentialsFile(home), 'utf8'))).toEqual({ server: srv.url });
    // The token no longer works anywhere, even passed explicitly.
    const again = await cli(['whoami'], { env: { WAITLIST_SERVER: srv.url, WAITLIST_SESSION: token } });
    expect(again.exitCode).toBe(4);
    expect(again.stderr).toContain('refused the WAITLIST_SESSION token');
  });

  it('logout with the server unreachable deletes the stored session anyway and says it was not revoked (exit 1)', async () => {
    const home = freshHome();
    await cliSignup(srv.url, home);
    const token = storedSession(home);
    const down = await closedPortUrl(); // nothing listens there
    writeFileSync(credentialsFile(home), JSON.stringify({ server: down, session: token }));
    const r = await cli(['logout', '--json'], { home });
    expect(r).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `error: cannot reach the server at ${down} (ECONNREFUSED): the stored session is deleted here, but it was not revoked on the server and stays valid there until it expires\n`,
    });
    expect(JSON.parse(readFileSync(credentialsFile(home), 'utf8'))).toEqual({ server: down });
    expect(await cli(['logout'], { home })).toEqual({ exitCode: 0, stdout: '', stderr: '' }); // nothing left to do
    // WAITLIST_SESSION against an unreachable server: nothing stored to delete; the message says so.
    const env = await cli(['logout'], { env: { WAITLIST_SERVER: down, WAITLIST_SESSION: token } });
    expect(env.exitCode).toBe(1);
    expect(env.stderr).toBe(
      `error: cannot reach the server at ${down} (ECONNREFUSED): the WAITLIST_SESSION token was not revoked on the server and stays valid there until it expires\n`,
    );
    // True: it still works on the real server.
    expect((await cli(['whoami'], { env: { WAITLIST_SERVER: srv.url, WAITLIST_SESSION: token } })).exitCode).toBe(0);
  });

  it('not logged in: every API command exits 4, prints nothing on stdout and says to log in', async () => {
    for (const args of [['whoami'], ['project', 'list'], ['key', 'list', '--project', 'x'], ['entry', 'list', '--project', 'x']]) {
      const r = await cli(args);
      expect(r.exitCode, args.join(' ')).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('waitlist login');
    }
  });

  it('logout when logged out succeeds quietly', async () => {
    const r = await cli(['logout']);
    expect(r).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect((await cli(['logout', '--json'])).stdout).toBe('null\n');
    // twice in a row after a real session: the second one has nothing to do
    const home = freshHome();
    await cliSignup(srv.url, home);
    expect((await cli(['logout'], { home })).exitCode).toBe(0);
    expect(await cli(['logout'], { home })).toEqual({ exitCode: 0, stdout: '', stderr: '' });
  });
});

describe('CI: WAITLIST_SERVER and WAITLIST_SESSION', () => {
  it('work with an empty HOME and no config file', async () => {
    const home = freshHome();
    const { email } = await cliSignup(srv.url, home);
    const env = { WAITLIST_SERVER: srv.url, WAITLIST_SESSION: storedSession(home), HOME: '', XDG_CONFIG_HOME: '' };
    const r = await cliProcess(['whoami', '--json'], { env, home: '/nonexistent' });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ email });
    const p = await cliProcess(['project', 'create', '--name', 'From CI', '--json'], { env, home: '/nonexistent' });
    expect(p.exitCode).toBe(0);
    const e = await cliProcess(['entry', 'export', '--project', JSON.parse(p.stdout).slug, '--format', 'json'], {
      env,
      home: '/nonexistent',
    });
    expect(e.exitCode).toBe(0);
    expect(JSON.parse(e.stdout)).toEqual([]);
  });

  it('WAITLIST_SESSION overrides the stored session; a stored session is never sent to another server', async () => {
    const a = freshHome();
    const b = freshHome();
    const userA = await cliSignup(srv.url, a);
    await cliSignup(srv.url, b);
    const asA = await cliJson(['whoami'], { home: b, env: { WAITLIST_SESSION: storedSession(a) } });
    expect(asA.email).toBe(userA.email);
    // Pointed elsewhere, b's stored session stays home, and the message says whose it is.
    const other = await cli(['whoami'], { home: b, env: { WAITLIST_SERVER: 'http://127.0.0.1:9' } });
    expect(other.exitCode).toBe(4);
    expect(other.stderr).toBe(
      `error: the stored session belongs to ${srv.url}, not http://127.0.0.1:9: run \`waitlist login --server http://127.0.0.1:9\` (or set WAITLIST_SESSION)\n`,
    );
  });

  it('a refused WAITLIST_SESSION says the token was refused (exit 4), not "run waitlist login"', async () => {
    const r = await cli(['project', 'list'], { env: { WAITLIST_SERVER: srv.url, WAITLIST_SESSION: 'x'.repeat(43) } });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('refused the WAITLIST_SESSION token');
    expect(r.stderr).not.toContain('waitlist login');
  });

  it('WAITLIST_SERVER that is not a URL is a usage error (exit 2), like --server not-a-url', async () => {
    const flag = await cli(['login', '--server', 'not-a-url', '--email', 'a@example.com', '--password-stdin'], { input: 'x' });
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain('must be a URL such as http://127.0.0.1:8080');
    for (const [args, env] of [
      [['whoami'], { WAITLIST_SERVER: 'not-a-url' }],
      [['project', 'list', '--json'], { WAITLIST_SERVER: 'not-a-url', WAITLIST_SESSION: 'x'.repeat(43) }],
      [['login', '--email', 'a@example.com', '--password-stdin'], { WAITLIST_SERVER: 'not-a-url' }],
    ] as const) {
      const r = await cli([...args], { env, input: 'a long password' });
      expect(r, args.join(' ')).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: "error: WAITLIST_SERVER must be a URL such as http://127.0.0.1:8080, not 'not-a-url'\n",
      });
    }
    const ftp = await cli(['whoami'], { env: { WAITLIST_SERVER: 'ftp://x' } });
    expect(ftp.exitCode).toBe(2);
    expect(ftp.stderr).toBe("error: WAITLIST_SERVER must be an http:// or https:// URL, not 'ftp://x'\n");
  });

  it('an unreachable server is exit 1 with a plain message', async () => {
    const r = await cli(['whoami'], { env: { WAITLIST_SERVER: 'http://127.0.0.1:9', WAITLIST_SESSION: 'x'.repeat(43) } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: cannot reach the server at http:\/\/127\.0\.0\.1:9/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
