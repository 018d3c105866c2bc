// Accounts and sessions: signup (closed after the first user, open with --open-signup), login,
// logout (server-side revocation), cookie flags, Secure behind a trusted HTTPS proxy.
import bcrypt from 'bcrypt';
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsLeaked, fails, issuePaths, ok, ISO_RE } from '../helpers/api.js';
import { Client, cleanup, DIALECT, startServer, type Res, type TestServer } from '../helpers/server.js';

let closed: TestServer; // default: signup open only for the first user
let open: TestServer; // --open-signup
let proxied: TestServer; // --trust-proxy --open-signup

beforeAll(async () => {
  [closed, open, proxied] = await Promise.all([
    startServer(),
    startServer({ args: ['--open-signup'] }),
    startServer({ args: ['--trust-proxy', '--open-signup'] }),
  ]);
});
afterAll(async () => {
  for (const s of [closed, open, proxied]) {
    await s.stop();
    cleanup(s);
  }
});

const PW = 'correct horse battery';
let n = 0;
const email = (tag = 'u') => `${tag}-${++n}@example.com`;
const cookieOf = (r: Res) => r.headers.get('set-cookie') ?? '';
const tokenOf = (r: Res) => /waitlist_session=([^;]*)/.exec(cookieOf(r))?.[1] ?? '';

function expectUser(u: any, mail: string) {
  expect(Object.keys(u).sort()).toEqual(['createdAt', 'email', 'name', 'userId']);
  expect(u.userId).toMatch(/^usr_[0-9A-Za-z]{10,}$/);
  expect(u.email).toBe(mail);
  expect(u.createdAt).toMatch(ISO_RE);
}

function expectSessionCookie(set: string, secure: boolean) {
  expect(set).toMatch(/^waitlist_session=[A-Za-z0-9_-]+;/);
  const attrs = set.split(';').map((a) => a.trim().toLowerCase());
  expect(attrs).toContain('httponly');
  expect(attrs).toContain('samesite=lax');
  expect(attrs).toContain('path=/');
  expect(attrs.includes('secure')).toBe(secure);
}

describe('signup on a fresh server (closed after the first user)', () => {
  const first = email('first');
  let c: Client;

  it('validation: password 8–200 chars, valid email, no unknown fields (no user created)', async () => {
    const cases: [unknown, string][] = [
      [{ email: first, password: '1234567' }, 'password'],
      [{ email: first, password: 'p'.repeat(201) }, 'password'],
      [{ email: first }, 'password'],
      [{ email: 'nope', password: PW }, 'email'],
      [{ password: PW }, 'email'],
      [{ email: first, password: PW, role: 'admin' }, 'role'],
      [{ email: first, password: PW, name: 'n'.repeat(201) }, 'name'],
    ];
    for (const [body, path] of cases) {
      expect(issuePaths(await new Client(closed.url).post('/api/auth/signup', body))).toContain(path);
    }
  });

  it('the first user may sign up: 201, user, session cookie', async () => {
    c = new Client(closed.url);
    const r = await c.post('/api/auth/signup', { email: first, password: PW, name: 'First' });
    const u = ok(r, 201);
    expectUser(u, first);
    expect(u.name).toBe('First');
    expectSessionCookie(cookieOf(r), false);
    expect(ok(await c.get('/api/auth/me')).userId).toBe(u.userId);
  });

  it('then sign-up is closed: 403 signup_closed, and no account is created', async () => {
    const other = email('late');
    fails(await new Client(closed.url).post('/api/auth/signup', { email: other, password: PW }), 403, 'signup_closed');
    fails(await new Client(closed.url).post('/api/auth/login', { email: other, password: PW }), 401, 'unauthorized');
  });

  it('a session is a random token of ≥128 bits; the database keeps only its SHA-256', async () => {
    const r = await new Client(closed.url).post('/api/auth/login', { email: first, password: PW });
    const token = tokenOf(r);
    expect(token.length).toBeGreaterThanOrEqual(22);
    const again = tokenOf(await new Client(closed.url).post('/api/auth/login', { email: first, password: PW }));
    expect(again).not.toBe(token);
    if (DIALECT !== 'sqlite') return;
    const db = new Database(closed.dbFile, { readonly: true });
    try {
      const dump = JSON.stringify(db.prepare('SELECT * FROM sessions').all());
      expect(dump).not.toContain(token);
      expect(dump).toContain(createHash('sha256').update(token).digest('hex'));
      const users = db.prepare('SELECT password_hash FROM users').all() as { password_hash: string }[];
      for (const u of users) expect(u.password_hash).toMatch(/^\$2[aby]\$\d\d\$/);
    } finally {
      db.close();
    }
  });

  it('the session expires in 30 days (Max-Age or Expires)', async () => {
    const set = cookieOf(await new Client(closed.url).post('/api/auth/login', { email: first, password: PW }));
    const maxAge = /max-age=(\d+)/i.exec(set)?.[1];
    const expires = /expires=([^;]+)/i.exec(set)?.[1];
    const seconds = maxAge ? Number(maxAge) : (Date.parse(expires!) - Date.now()) / 1000;
    expect(Math.abs(seconds - 30 * 86400)).toBeLessThan(120);
  });
});

describe('concurrent first sign-ups', () => {
  it('on a fresh server, of 10 simultaneous sign-ups exactly one succeeds', async () => {
    const s = await startServer();
    try {
      const rs = await Promise.all(
        Array.from({ length: 10 }, (_, i) => new Client(s.url).post('/api/auth/signup', { email: `race-${i}@example.com`, password: PW })),
      );
      expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
      for (const r of rs.filter((x) => x.status !== 201)) fails(r, 403, 'signup_closed');
    } finally {
      await s.stop();
      cleanup(s);
    }
  });
});

describe('login', () => {
  const mail = email('login');
  beforeAll(async () => {
    ok(await new Client(open.url).post('/api/auth/signup', { email: mail, password: PW }), 201);
  });

  it('200 with the user and a session cookie', async () => {
    const c = new Client(open.url);
    const r = await c.post('/api/auth/login', { email: mail, password: PW });
    expectUser(ok(r), mail);
    expectSessionCookie(cookieOf(r), false);
    expectUser(ok(await c.get('/api/auth/me')), mail);
  });

  it('the email is case-insensitive and trimmed', async () => {
    ok(await new Client(open.url).post('/api/auth/login', { email: `  ${mail.toUpperCase()} `, password: PW }));
  });

  it('wrong email and wrong password → the same 401 message', async () => {
    const wrongPw = await new Client(open.url).post('/api/auth/login', { email: mail, password: 'not the password' });
    const wrongEmail = await new Client(open.url).post('/api/auth/login', { email: email('ghost'), password: PW });
    fails(wrongPw, 401, 'unauthorized');
    fails(wrongEmail, 401, 'unauthorized');
    expect(wrongEmail.body.message).toBe(wrongPw.body.message);
    expect(cookieOf(wrongPw)).toBe('');
  });

  it('a malformed email or a password longer than any account can have → the same 401 as a wrong one', async () => {
    const wrongPw = await new Client(open.url).post('/api/auth/login', { email: mail, password: 'not the password' });
    for (const body of [
      { email: 'not-an-email', password: PW },
      { email: mail, password: 'x'.repeat(300) },
    ]) {
      const r = await new Client(open.url).post('/api/auth/login', body);
      fails(r, 401, 'unauthorized');
      expect(r.body.message).toBe(wrongPw.body.message);
    }
  });

  it('a missing password or unknown field → 400 naming it', async () => {
    expect(issuePaths(await new Client(open.url).post('/api/auth/login', { email: mail }))).toContain('password');
    expect(issuePaths(await new Client(open.url).post('/api/auth/login', { email: mail, password: PW, remember: true }))).toContain(
      'remember',
    );
  });

  it('two logins give two independent sessions', async () => {
    const a = new Client(open.url);
    const b = new Client(open.url);
    ok(await a.post('/api/auth/login', { email: mail, password: PW }));
    ok(await b.post('/api/auth/login', { email: mail, password: PW }));
    expect(a.cookie).not.toBe(b.cookie);
    ok(await a.post('/api/auth/logout'));
    ok(await b.get('/api/auth/me'));
  });
});

describe('logout', () => {
  it('200, clears the cookie, and revokes the session server-side', async () => {
    const mail = email('logout');
    const c = new Client(open.url);
    ok(await c.post('/api/auth/signup', { email: mail, password: PW }), 201);
    const old = c.cookie;
    expect(old).toMatch(/^waitlist_session=.+/);
    const r = await c.post('/api/auth/logout');
    ok(r);
    const set = cookieOf(r);
    expect(set).toMatch(/waitlist_session=;|waitlist_session=""/);
    expect(set).toMatch(/max-age=0|expires=thu, 01 jan 1970/i);
    // The old cookie, replayed, no longer works anywhere.
    const replay = new Client(open.url);
    replay.cookie = old;
    fails(await replay.get('/api/auth/me'), 401, 'unauthorized');
    fails(await replay.get('/api/project'), 401, 'unauthorized');
    fails(await replay.post('/api/auth/logout'), 401, 'unauthorized');
  });
});

describe.skipIf(DIALECT !== 'sqlite')('session expiry', () => {
  it('an expired session → 401; a live one is extended (sliding)', async () => {
    const mail = email('expiry');
    const c = new Client(open.url);
    ok(await c.post('/api/auth/signup', { email: mail, password: PW }), 201);
    const token = c.cookie.split('=')[1]!;
    const hash = createHash('sha256').update(token).digest('hex');
    const db = new Database(open.dbFile);
    try {
      // Nearly expired: the next request extends it back to ~30 days.
      db.prepare('UPDATE sessions SET expires_at = ? WHERE token_hash = ?').run(Date.now() + 60_000, hash);
      ok(await c.get('/api/auth/me'));
      const row = db.prepare('SELECT expires_at FROM sessions WHERE token_hash = ?').get(hash) as { expires_at: number };
      expect(row.expires_at - Date.now()).toBeGreaterThan(29 * 86_400_000);
      // Expired: refused.
      db.prepare('UPDATE sessions SET expires_at = ? WHERE token_hash = ?').run(Date.now() - 1, hash);
      fails(await c.get('/api/auth/me'), 401, 'unauthorized');
      fails(await c.get('/api/project'), 401, 'unauthorized');
    } finally {
      db.close();
    }
  });
});

describe('open signup (--open-signup)', () => {
  it('anyone can sign up', async () => {
    for (let i = 0; i < 2; i++) {
      const mail = email('open');
      expectUser(ok(await new Client(open.url).post('/api/auth/signup', { email: mail, password: PW }), 201), mail);
    }
  });

  it('a duplicate email → 409 email_taken, also differing in case and whitespace', async () => {
    const mail = email('dup');
    ok(await new Client(open.url).post('/api/auth/signup', { email: mail, password: PW }), 201);
    fails(await new Client(open.url).post('/api/auth/signup', { email: mail, password: 'other password' }), 409, 'email_taken');
    fails(await new Client(open.url).post('/api/auth/signup', { email: ` ${mail.toUpperCase()} `, password: PW }), 409, 'email_taken');
    // and the original password still works
    ok(await new Client(open.url).post('/api/auth/login', { email: mail, password: PW }));
  });

  it('WAITLIST_OPEN_SIGNUP=1 does the same as the flag', async () => {
    const s = await startServer({ env: { WAITLIST_OPEN_SIGNUP: '1' } });
    try {
      ok(await new Client(s.url).post('/api/auth/signup', { email: email(), password: PW }), 201);
      ok(await new Client(s.url).post('/api/auth/signup', { email: email(), password: PW }), 201);
    } finally {
      await s.stop();
      cleanup(s);
    }
  });

  it('signup accepts passwords of exactly 8 and 200 characters', async () => {
    ok(await new Client(open.url).post('/api/auth/signup', { email: email(), password: '12345678' }), 201);
    ok(await new Client(open.url).post('/api/auth/signup', { email: email(), password: 'p'.repeat(200) }), 201);
  });

  it('every character of a long password counts (bcrypt alone reads 72 bytes)', async () => {
    const mail = email('long');
    const long = `${'p'.repeat(199)}X`;
    ok(await new Client(open.url).post('/api/auth/signup', { email: mail, password: long }), 201);
    for (const wrong of [`${'p'.repeat(199)}Y`, 'p'.repeat(72), 'p'.repeat(199)]) {
      fails(await new Client(open.url).post('/api/auth/login', { email: mail, password: wrong }), 401, 'unauthorized');
    }
    // Multi-byte characters: 36 of them are 72 bytes; the 37th differs.
    const wide = `${'é'.repeat(36)}ab`;
    const mail2 = email('wide');
    ok(await new Client(open.url).post('/api/auth/signup', { email: mail2, password: wide }), 201);
    fails(await new Client(open.url).post('/api/auth/login', { email: mail2, password: `${'é'.repeat(36)}ac` }), 401, 'unauthorized');
    ok(await new Client(open.url).post('/api/auth/login', { email: mail2, password: wide }));
    ok(await new Client(open.url).post('/api/auth/login', { email: mail, password: long }));
  });

  it('a long password hashed before that (its first 72 bytes) still logs in as it did, and no log-in replaces its hash', async () => {
    if (DIALECT !== 'sqlite') return;
    const mail = email('legacy');
    const long = `${'q'.repeat(150)}Z`;
    ok(await new Client(open.url).post('/api/auth/signup', { email: mail, password: long }), 201);
    const db = new Database(open.dbFile);
    try {
      // What earlier versions stored: bcrypt of the raw password (which reads its first 72 bytes).
      const legacy = await bcrypt.hash(long, 4);
      db.prepare('UPDATE users SET password_hash = ? WHERE email = ?').run(legacy, mail);
      const hash = () =>
        (db.prepare('SELECT password_hash FROM users WHERE email = ?').get(mail) as { password_hash: string }).password_hash;
      // As before the upgrade, another password with the same first 72 bytes logs in too (the old hash
      // cannot tell them apart)…
      ok(await new Client(open.url).post('/api/auth/login', { email: mail, password: `${'q'.repeat(150)}W` }));
      // …but it does not become the password: the owner's still works, and the hash is unchanged.
      ok(await new Client(open.url).post('/api/auth/login', { email: mail, password: long }));
      expect(hash()).toBe(legacy);
      fails(await new Client(open.url).post('/api/auth/login', { email: mail, password: 'q'.repeat(71) }), 401, 'unauthorized');
    } finally {
      db.close();
    }
  });
});

describe('cookies behind a proxy', () => {
  it('no Secure over plain http', async () => {
    const r = await new Client(proxied.url).post('/api/auth/signup', { email: email(), password: PW });
    expectSessionCookie(cookieOf(r), false);
  });

  it('Secure when X-Forwarded-Proto is https and --trust-proxy is on', async () => {
    const r = await new Client(proxied.url).post('/api/auth/signup', { email: email(), password: PW }, { 'x-forwarded-proto': 'https' });
    expectSessionCookie(cookieOf(r), true);
  });

  it('X-Forwarded-Proto is ignored without --trust-proxy', async () => {
    const mail = email();
    ok(await new Client(open.url).post('/api/auth/signup', { email: mail, password: PW }), 201);
    const r = await new Client(open.url).post('/api/auth/login', { email: mail, password: PW }, { 'x-forwarded-proto': 'https' });
    expectSessionCookie(cookieOf(r), false);
  });

  it('behind the HTTPS proxy the https origin is the own origin', async () => {
    const c = new Client(proxied.url);
    const headers = { 'x-forwarded-proto': 'https', origin: proxied.url.replace('http:', 'https:') };
    ok(await c.post('/api/auth/signup', { email: email(), password: PW }, headers), 201);
    ok(await c.get('/api/auth/me', headers));
    fails(await c.get('/api/auth/me', { origin: proxied.url.replace('http:', 'https:') }), 403, 'forbidden');
  });
});

describe('no secrets', () => {
  it('no response held a bcrypt hash', () => {
    expect(assertNoSecretsLeaked().scanned).toBeGreaterThan(30);
  });
});
