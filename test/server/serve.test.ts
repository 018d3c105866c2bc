// `waitlist serve`: the printed URL, --port 0, PORT/WAITLIST_DB env, graceful SIGTERM/SIGINT (exit 0,
// in-flight requests finished), durability of a 201 across SIGKILL, --trust-proxy, --no-rate-limit.
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { BIN, Client, cleanup, DIALECT, postJoin, projectWithKey, signedUp, startServer } from '../helpers/server.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Spawns `waitlist serve` with exactly these args/env and waits for the URL line. */
async function spawnServe(args: string[], env: Record<string, string>) {
  const proc = execa('node', [BIN, 'serve', ...args], {
    env: { WAITLIST_RATE_LIMIT: 'off', DATABASE_URL: '', PORT: '', HOST: '', ...env },
    reject: false,
    all: true,
    buffer: false,
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL:\n${out}`)), 20_000);
    proc.all!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    void proc.then(() => reject(new Error(`exited:\n${out}`)));
  });
  return { proc, url, output: () => out };
}

const tmpDb = () => join(mkdtempSync(join(tmpdir(), 'waitlist-serve-')), 'w.db');

describe.skipIf(DIALECT !== 'sqlite')('flags and env', () => {
  it('--port 0 picks a free port and prints the real URL, which answers', async () => {
    const db = tmpDb();
    const s = await spawnServe(['--port', '0', '--db', db], {});
    try {
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(s.url).not.toMatch(/:0$/);
      ok(await new Client(s.url).get('/healthz'));
      expect(existsSync(db)).toBe(true);
    } finally {
      s.proc.kill('SIGTERM');
      await s.proc;
      rmSync(join(db, '..'), { recursive: true, force: true });
    }
  });

  it('PORT, HOST and WAITLIST_DB env vars are honoured; --db wins over WAITLIST_DB', async () => {
    const port = await freePort();
    const envDb = tmpDb();
    const flagDb = tmpDb();
    const s = await spawnServe(['--db', flagDb], { PORT: String(port), HOST: '127.0.0.1', WAITLIST_DB: envDb });
    try {
      expect(s.url).toBe(`http://127.0.0.1:${port}`);
      ok(await new Client(s.url).get('/healthz'));
      expect(existsSync(flagDb)).toBe(true);
      expect(existsSync(envDb)).toBe(false);
    } finally {
      s.proc.kill('SIGTERM');
      await s.proc;
      rmSync(join(envDb, '..'), { recursive: true, force: true });
      rmSync(join(flagDb, '..'), { recursive: true, force: true });
    }
  });

  it('--port beats PORT', async () => {
    const port = await freePort();
    const db = tmpDb();
    const s = await spawnServe(['--port', String(port), '--db', db], { PORT: '1' });
    try {
      expect(s.url).toBe(`http://127.0.0.1:${port}`);
    } finally {
      s.proc.kill('SIGTERM');
      await s.proc;
      rmSync(join(db, '..'), { recursive: true, force: true });
    }
  });
});

describe('signals', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s → exit code 0', async (signal) => {
    const srv = await startServer();
    ok(await new Client(srv.url).get('/healthz'));
    srv.proc.kill(signal);
    const r = await srv.proc;
    expect(r.exitCode).toBe(0);
    cleanup(srv);
  });

  it('SIGTERM exits promptly even after rate-limited joins (no timers keep it alive)', async () => {
    const srv = await startServer({ env: { WAITLIST_RATE_LIMIT: 'on', WAITLIST_JOIN_LIMIT: '100' } });
    const c = await signedUp(srv.url);
    const P = await projectWithKey(c);
    ok(await postJoin(srv.url, P.slug, P.key, { email: 'timer@example.com' }), 201);
    const t = Date.now();
    srv.proc.kill('SIGTERM');
    const r = await srv.proc;
    expect(r.exitCode).toBe(0);
    expect(Date.now() - t).toBeLessThan(5000);
    cleanup(srv);
  });

  it('a request in flight at SIGTERM is finished (201), then the process exits 0 and the entry is kept', async () => {
    const srv = await startServer();
    const c = await signedUp(srv.url);
    const P = await projectWithKey(c);
    const u = new URL(srv.url);
    const res = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          method: 'POST',
          path: `/v1/waitlist/${P.slug}/join`,
          headers: { authorization: `Bearer ${P.key}`, 'content-type': 'application/json' },
        },
        (r) => {
          let text = '';
          r.on('data', (d) => (text += d));
          r.on('end', () => resolve({ status: r.statusCode!, text }));
        },
      );
      req.on('error', reject);
      req.write('{"email":"inflight');
      setTimeout(() => {
        srv.proc.kill('SIGTERM');
        setTimeout(() => {
          // Stopped accepting: a new connection is refused while the old request is still open.
          // A fresh TCP connection: a pooled keep-alive one would still be answered during the idle grace.
          refused = new Promise((done) => {
            const probe = connect(Number(u.port), u.hostname);
            probe.once('connect', () => (probe.destroy(), done(false)));
            probe.once('error', () => done(true));
          });
          setTimeout(() => req.end('@example.com"}'), 200);
        }, 200);
      }, 200);
    });
    let refused: Promise<boolean> = Promise.resolve(false);
    const r = await res;
    expect(await refused).toBe(true);
    const answered = Date.now();
    expect(r.status, r.text).toBe(201);
    expect((await srv.proc).exitCode).toBe(0);
    // The finished keep-alive connection must not hold the exit until its idle timeout.
    expect(Date.now() - answered).toBeLessThan(2500);
    const again = await startServer({ reuse: srv });
    try {
      const c2 = new Client(again.url);
      c2.cookie = c.cookie;
      const list = ok(await c2.get(`/api/project/${P.projectId}/waitlist`));
      expect(list.items.map((e: any) => e.email)).toEqual(['inflight@example.com']);
    } finally {
      await again.stop();
      cleanup(again);
    }
  });
});

describe('durability', () => {
  it('every 201 survives a SIGKILL right after it was answered', async () => {
    const srv = await startServer();
    const c = await signedUp(srv.url);
    const P = await projectWithKey(c);
    const emails = Array.from({ length: 25 }, (_, i) => `durable-${i}@example.com`);
    const rs = await Promise.all(emails.map((email) => postJoin(srv.url, P.slug, P.key, { email })));
    const last = await postJoin(srv.url, P.slug, P.key, { email: 'durable-last@example.com' });
    srv.proc.kill('SIGKILL');
    await srv.proc;
    const created = [...rs, last].filter((r) => r.status === 201).map((r) => r.body.data.entryId as string);
    expect(created).toHaveLength(26);
    const again = await startServer({ reuse: srv });
    try {
      const c2 = new Client(again.url);
      c2.cookie = c.cookie;
      const list = ok(await c2.get(`/api/project/${P.projectId}/waitlist?limit=100`));
      expect(list.items.map((e: any) => e.entryId).sort()).toEqual(created.sort());
    } finally {
      await again.stop();
      cleanup(again);
    }
  });

  it('a restart on the same database keeps users, sessions, projects and keys', async () => {
    const srv = await startServer();
    const c = await signedUp(srv.url);
    const P = await projectWithKey(c);
    await srv.stop();
    const again = await startServer({ reuse: srv });
    try {
      const c2 = new Client(again.url);
      c2.cookie = c.cookie;
      ok(await c2.get('/api/auth/me'));
      ok(await c2.get(`/api/project/${P.projectId}`));
      ok(await postJoin(again.url, P.slug, P.key, { email: 'restart@example.com' }), 201);
    } finally {
      await again.stop();
      cleanup(again);
    }
  });
});

describe('client IP and proxies', () => {
  const entryOf = async (c: Client, projectId: string) => ok(await c.get(`/api/project/${projectId}/waitlist`)).items[0];

  it('without --trust-proxy the socket peer is recorded and X-Forwarded-For ignored', async () => {
    const srv = await startServer();
    try {
      const c = await signedUp(srv.url);
      const P = await projectWithKey(c);
      ok(await postJoin(srv.url, P.slug, P.key, { email: 'direct@example.com' }, { 'x-forwarded-for': '8.8.8.8' }), 201);
      expect(await entryOf(c, P.projectId)).toMatchObject({ ip: '127.0.0.1', country: null });
    } finally {
      await srv.stop();
      cleanup(srv);
    }
  });

  it.each([
    ['--trust-proxy flag', { args: ['--trust-proxy'] }],
    ['WAITLIST_TRUST_PROXY=1', { env: { WAITLIST_TRUST_PROXY: '1' } }],
  ])('with %s the X-Forwarded-For client and its country are recorded', async (_n, opts) => {
    const srv = await startServer(opts);
    try {
      const c = await signedUp(srv.url);
      const P = await projectWithKey(c);
      ok(
        await postJoin(
          srv.url,
          P.slug,
          P.key,
          { email: 'proxied@example.com' },
          { 'x-forwarded-for': '8.8.8.8', 'user-agent': 'Proxied/1' },
        ),
        201,
      );
      const e = await entryOf(c, P.projectId);
      expect(e.ip).toBe('8.8.8.8');
      expect(e.country).toMatch(/^[A-Z]{2}$/);
      expect(e.userAgent).toBe('Proxied/1');
    } finally {
      await srv.stop();
      cleanup(srv);
    }
  });
});

describe('rate limit switch', () => {
  it('--no-rate-limit turns the join limit off', async () => {
    const srv = await startServer({ args: ['--no-rate-limit'], env: { WAITLIST_RATE_LIMIT: 'on', WAITLIST_JOIN_LIMIT: '1' } });
    try {
      const c = await signedUp(srv.url);
      const P = await projectWithKey(c);
      for (let i = 0; i < 4; i++) ok(await postJoin(srv.url, P.slug, P.key, { email: `nolimit-${i}@example.com` }), 201);
    } finally {
      await srv.stop();
      cleanup(srv);
    }
  });

  it('WAITLIST_RATE_LIMIT=off turns it off too; on by default', async () => {
    const off = await startServer({ env: { WAITLIST_RATE_LIMIT: 'off', WAITLIST_JOIN_LIMIT: '1' } });
    const on = await startServer({ env: { WAITLIST_RATE_LIMIT: '', WAITLIST_JOIN_LIMIT: '1' } });
    try {
      for (const [srv, second] of [
        [off, 201],
        [on, 429],
      ] as const) {
        const c = await signedUp(srv.url);
        const P = await projectWithKey(c);
        ok(await postJoin(srv.url, P.slug, P.key, { email: 'one@example.com' }), 201);
        expect((await postJoin(srv.url, P.slug, P.key, { email: 'two@example.com' })).status).toBe(second);
      }
    } finally {
      for (const s of [off, on]) {
        await s.stop();
        cleanup(s);
      }
    }
  });
});

describe('keep-alive', () => {
  it('an idle connection stays open 30 s (Keep-Alive: timeout=30): a request after a 6 s pause reuses it', async () => {
    const srv = await startServer();
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const get = () =>
        new Promise<{ reused: boolean; keepAlive: string; status: number | undefined }>((resolve, reject) => {
          const req = request(`${srv.url}/healthz`, { agent }, (res) => {
            res.resume();
            res.on('end', () =>
              resolve({ reused: req.reusedSocket, keepAlive: String(res.headers['keep-alive']), status: res.statusCode }),
            );
          });
          req.on('error', reject);
          req.end();
        });
      expect(await get()).toEqual({ reused: false, keepAlive: 'timeout=30', status: 200 });
      await new Promise((r) => setTimeout(r, 6_000)); // past Node's default 5 s
      expect(await get()).toEqual({ reused: true, keepAlive: 'timeout=30', status: 200 });
      agent.destroy();
    } finally {
      await srv.stop();
      cleanup(srv);
    }
  });
});

describe('a port already in use', () => {
  it('exits 1 at once with the error, having closed the database (an open PostgreSQL pool kept it running)', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((resolve) =>
      blocker.listen(0, '127.0.0.1', () => resolve((blocker.address() as { port: number }).port)),
    );
    try {
      const env: Record<string, string> = { WAITLIST_RATE_LIMIT: 'off', PORT: '', HOST: '', DATABASE_URL: '' };
      const args = ['serve', '--port', String(port)];
      if (DIALECT === 'pg') {
        const { createPgDatabase } = await import('../helpers/pg.js');
        args.push('--database-url', await createPgDatabase(process.env.TEST_DATABASE_URL!));
      } else args.push('--db', tmpDb());
      const r = await execa('node', [BIN, ...args], { env, reject: false, all: true, timeout: 20_000 });
      expect(r.timedOut, r.all).toBe(false);
      expect(r.exitCode).toBe(1);
      expect(r.all).toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
  });
});
