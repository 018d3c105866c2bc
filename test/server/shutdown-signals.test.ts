// Graceful shutdown of `waitlist serve` under SIGTERM/SIGINT: a repeated signal does not kill the
// server (the request in flight still gets its 201, exit 0), and requests that keep-alive clients had
// already sent when the signal came are answered, not reset.
import { execa } from 'execa';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { BIN, Client, cleanup, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

/** Resolves once the server's output (stdout + stderr) matches `re` (the output so far counts too). */
function outputMatches(srv: TestServer, re: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    if (re.test(srv.output())) return resolve();
    const onData = () => {
      if (re.test(srv.output())) {
        srv.proc.all!.off('data', onData);
        resolve();
      }
    };
    srv.proc.all!.on('data', onData);
    void srv.proc.then(() => reject(new Error(`server exited before printing ${re}:\n${srv.output()}`)));
  });
}

/** The entries' emails of a project, read from a fresh server on the same database. */
async function emailsAfterRestart(srv: TestServer, cookie: string, projectId: string): Promise<string[]> {
  const again = await startServer({ reuse: srv });
  try {
    const c = new Client(again.url);
    c.cookie = cookie;
    const list = ok(await c.get(`/api/project/${projectId}/waitlist?limit=100`));
    return list.items.map((e: { email: string }) => e.email).sort();
  } finally {
    await again.stop();
  }
}

/** A raw HTTP/1.1 connection: send bytes, read one response (status, headers, Content-Length body). */
class Conn {
  private buf = Buffer.alloc(0);
  private ended = false;
  private error: Error | undefined;
  private wake: (() => void) | undefined;
  private constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.wake?.();
    });
    socket.on('end', () => {
      this.ended = true;
      this.wake?.();
    });
    socket.on('error', (e) => {
      this.error = e;
      this.wake?.();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake?.();
    });
  }

  static open(url: string): Promise<Conn> {
    const u = new URL(url);
    return new Promise((resolve, reject) => {
      const s = connect(Number(u.port), u.hostname, () => resolve(new Conn(s)));
      s.once('error', reject);
    });
  }

  /** Resolves once the bytes were handed to the kernel: the request is fully sent. */
  send(text: string): Promise<void> {
    return new Promise((resolve, reject) => this.socket.write(text, (err) => (err ? reject(err) : resolve())));
  }

  /** The next response, or what went wrong instead (`reset: ECONNRESET`, `closed without a response`). */
  async response(): Promise<{ status: number; headers: string; body: string } | { failed: string }> {
    for (;;) {
      const head = this.buf.indexOf('\r\n\r\n');
      if (head >= 0) {
        const headers = this.buf.subarray(0, head).toString();
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(headers)?.[1] ?? 0);
        if (this.buf.length >= head + 4 + length) {
          const body = this.buf.subarray(head + 4, head + 4 + length).toString();
          this.buf = this.buf.subarray(head + 4 + length);
          return { status: Number(headers.split(' ')[1]), headers, body };
        }
      }
      if (this.error) return { failed: `reset: ${(this.error as NodeJS.ErrnoException).code ?? this.error.message}` };
      if (this.ended) return { failed: `closed without a response (${this.buf.length} bytes)` };
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  close() {
    this.socket.destroy();
  }
}

const httpRequest = (host: string, method: string, path: string, headers: Record<string, string>, body = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n` +
  Object.entries({ ...headers, 'Content-Length': String(Buffer.byteLength(body)) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('') +
  `\r\n${body}`;

/**
 * A TCP relay in front of the server that can hold what clients send: a request "on the wire", sent by
 * the client but not arrived yet (as over a network), when the server gets its signal. Answers pass.
 */
class Relay {
  private held: (() => void)[] = [];
  holding = false;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: string): Promise<Relay> {
    const t = new URL(target);
    let relay: Relay | undefined;
    const server = createServer((client) => {
      const upstream = connect(Number(t.port), t.hostname);
      client.on('data', (d: Buffer) => {
        const forward = () => void upstream.write(d);
        if (relay!.holding) relay!.held.push(forward);
        else forward();
      });
      upstream.on('data', (d: Buffer) => void client.write(d));
      // A reset or close on one side reaches the other as it is (a reset stays a reset).
      upstream.on('error', () => client.resetAndDestroy());
      upstream.on('end', () => client.end());
      client.on('error', () => upstream.resetAndDestroy());
      client.on('end', () => upstream.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    relay = new Relay(server, `http://127.0.0.1:${port}`);
    return relay;
  }

  /** Sends on what was held, in order, and stops holding. */
  release() {
    this.holding = false;
    for (const f of this.held.splice(0)) f();
  }

  close() {
    this.server.close();
  }
}

const joinRequest = (host: string, P: { slug: string; key: string }, email: string) =>
  httpRequest(
    host,
    'POST',
    `/v1/waitlist/${P.slug}/join`,
    { authorization: `Bearer ${P.key}`, 'content-type': 'application/json' },
    JSON.stringify({ email }),
  );

/** A request cut `n` bytes into its body: [headers + n bytes, the rest]. */
function splitBody(req: string, n: number): [string, string] {
  const at = req.indexOf('\r\n\r\n') + 4 + n;
  return [req.slice(0, at), req.slice(at)];
}

describe('a repeated signal during shutdown', () => {
  it.each([
    ['SIGTERM', 'SIGTERM'],
    ['SIGTERM', 'SIGINT'],
    ['SIGINT', 'SIGINT'],
  ] as const)('%s then %s: the request in flight still gets its 201, exit 0, the entry is kept', async (first, second) => {
    const srv = await startServer();
    try {
      const c = await signedUp(srv.url);
      const P = await projectWithKey(c);
      const host = new URL(srv.url).host;
      const email = `twice-${first}-${second}@example.com`.toLowerCase();
      const k = await Conn.open(srv.url);
      await k.send(httpRequest(host, 'GET', '/healthz', {}));
      expect(await k.response()).toMatchObject({ status: 200 });
      // The headers and the start of the body: the request is in flight (the server is reading it).
      const [head, rest] = splitBody(joinRequest(host, P, email), 6);
      await k.send(head);
      srv.proc.kill(first);
      await outputMatches(srv, new RegExp(`${first} received: finishing requests in flight`));
      srv.proc.kill(second);
      await outputMatches(srv, new RegExp(`${second} received again`));
      await k.send(rest);
      const r = await k.response();
      k.close();
      expect(r).toMatchObject({ status: 201 });
      const done = await srv.proc;
      expect(done.exitCode, srv.output()).toBe(0);
      expect(await emailsAfterRestart(srv, c.cookie, P.projectId)).toEqual([email]);
    } finally {
      await srv.stop();
      cleanup(srv);
    }
  });
});

describe('requests already sent when SIGTERM comes', () => {
  it('every join written on an open keep-alive connection just before SIGTERM is answered 201, then exit 0', async () => {
    const N = 40;
    const srv = await startServer();
    try {
      const c = await signedUp(srv.url);
      const P = await projectWithKey(c);
      const host = new URL(srv.url).host;
      // N keep-alive connections, each with one request answered: the server has accepted them all.
      const conns = await Promise.all(Array.from({ length: N }, () => Conn.open(srv.url)));
      await Promise.all(conns.map((k) => k.send(httpRequest(host, 'GET', '/healthz', {}))));
      for (const k of conns) {
        const r = await k.response();
        expect(r).toMatchObject({ status: 200 });
        expect((r as { headers: string }).headers).not.toMatch(/connection: close/i);
      }
      // A complete join on every connection, handed to the kernel; then SIGTERM at once.
      const emails = conns.map((_, i) => `sent-before-sigterm-${i}@example.com`);
      await Promise.all(conns.map((k, i) => k.send(joinRequest(host, P, emails[i]!))));
      srv.proc.kill('SIGTERM');
      const answers = await Promise.all(conns.map((k) => k.response()));
      for (const k of conns) k.close();
      const statuses = answers.map((a) => ('status' in a ? a.status : a.failed));
      expect(statuses).toEqual(emails.map(() => 201));
      // Answered while shutting down: the client is told not to send more on this connection.
      for (const a of answers) expect((a as { headers: string }).headers).toMatch(/\r\nconnection: close\r\n/i);
      expect((await srv.proc).exitCode, srv.output()).toBe(0);
      expect(await emailsAfterRestart(srv, c.cookie, P.projectId)).toEqual([...emails].sort());
    } finally {
      await srv.stop();
      cleanup(srv);
    }
  });

  it('joins on their way when SIGTERM comes (sent by the client, not arrived yet) are answered 201, then exit 0', async () => {
    const N = 20;
    const srv = await startServer({ env: { WAITLIST_SHUTDOWN_GRACE: '5' } }); // the test releases the "network" well within 5 s, however loaded the machine
    const relay = await Relay.start(srv.url);
    try {
      const c = await signedUp(srv.url);
      const P = await projectWithKey(c);
      const host = new URL(srv.url).host;
      const conns = await Promise.all(Array.from({ length: N }, () => Conn.open(relay.url)));
      await Promise.all(conns.map((k) => k.send(httpRequest(host, 'GET', '/healthz', {}))));
      for (const k of conns) expect(await k.response()).toMatchObject({ status: 200 });
      // Each client sends a complete join; the "network" holds it until the server has its SIGTERM.
      relay.holding = true;
      const emails = conns.map((_, i) => `on-the-wire-${i}@example.com`);
      await Promise.all(conns.map((k, i) => k.send(joinRequest(host, P, emails[i]!))));
      // The signal itself, not execa's kill(): that sends SIGKILL 5 s later, and with a 5 s grace the
      // server may rightly keep an idle connection (this test's own API client's) open that long.
      process.kill(srv.proc.pid!, 'SIGTERM');
      await outputMatches(srv, /SIGTERM received/);
      relay.release();
      const answers = await Promise.all(conns.map((k) => k.response()));
      for (const k of conns) k.close();
      expect(answers.map((a) => ('status' in a ? a.status : a.failed))).toEqual(emails.map(() => 201));
      for (const a of answers) expect((a as { headers: string }).headers).toMatch(/\r\nconnection: close\r\n/i);
      expect((await srv.proc).exitCode, srv.output()).toBe(0);
      expect(await emailsAfterRestart(srv, c.cookie, P.projectId)).toEqual([...emails].sort());
    } finally {
      relay.close();
      await srv.stop();
      cleanup(srv);
    }
  });

  it('a new connection is refused at once, while the already-sent request is still answered', async () => {
    const srv = await startServer();
    try {
      const c = await signedUp(srv.url);
      const P = await projectWithKey(c);
      const host = new URL(srv.url).host;
      const k = await Conn.open(srv.url);
      await k.send(httpRequest(host, 'GET', '/healthz', {}));
      expect(await k.response()).toMatchObject({ status: 200 });
      // A join whose body is not complete yet holds the shutdown open.
      const [head, rest] = splitBody(joinRequest(host, P, 'held-open@example.com'), 5);
      await k.send(head);
      srv.proc.kill('SIGTERM');
      await outputMatches(srv, /SIGTERM received/);
      // A fresh TCP connection (not one from a pool, which the server would still answer on).
      const refused = await Conn.open(srv.url).then(
        (fresh) => (fresh.close(), false),
        (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED',
      );
      expect(refused).toBe(true);
      await k.send(rest);
      const r = await k.response();
      expect(r).toMatchObject({ status: 201 });
      k.close();
      expect((await srv.proc).exitCode, srv.output()).toBe(0);
    } finally {
      await srv.stop();
      cleanup(srv);
    }
  });
});

describe('a signal while the server is starting', () => {
  it('SIGTERM before the server listens: it finishes starting, then stops as usual (exit 0), not killed (143)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wl-early-signal-'));
    try {
      // A preload that sends the process SIGTERM from inside start-up: as the HTTP server begins to listen,
      // after the database is open and migrated and before the "listening" line.
      const preload = join(dir, 'signal-at-listen.mjs');
      writeFileSync(
        preload,
        `import { Server } from 'node:http';
const listen = Server.prototype.listen;
Server.prototype.listen = function (...args) {
  process.kill(process.pid, 'SIGTERM');
  return listen.apply(this, args);
};
`,
      );
      const r = await execa('node', ['--import', preload, BIN, 'serve', '--port', '0', '--db', join(dir, 'w.db')], {
        env: { DATABASE_URL: '', WAITLIST_DB: '' },
        reject: false,
        all: true,
        timeout: 20_000, // a signal dropped on the way leaves the server running: killed here, and failed below
      });
      expect(r.exitCode, r.all).toBe(0);
      expect(r.all).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      expect(r.all).toContain('SIGTERM received');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
