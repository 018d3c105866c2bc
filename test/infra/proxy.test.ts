// Two real `waitlist serve` instances on one PostgreSQL (a throwaway cluster) behind Debian's nginx,
// configured with the repository's deploy/nginx.conf and TLS from a self-signed certificate made here:
// joins and the dashboard through the proxy, client IP and country from X-Forwarded-For, Secure
// cookies over HTTPS, the Origin check passing through the proxy and refusing a foreign origin, and
// one instance killed while the proxy keeps serving from the other.
import { execa, type ResultPromise } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startServer, uniqueEmail, type TestServer } from '../helpers/server.js';
import { HAVE_CHROMIUM, launchChromium } from '../helpers/browser.js';
import { clusterUnavailableReason, freePort, startCluster, type Cluster } from '../helpers/pg-cluster.js';

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));
const OPENSSL = ['/usr/bin/openssl', '/usr/local/bin/openssl'].find((p) => existsSync(p));
const skip = !NGINX
  ? 'nginx is not installed (apt-get install -y nginx-light; .ci/run does this)'
  : !OPENSSL
    ? 'openssl is not installed'
    : clusterUnavailableReason();
if (skip) console.warn(`[waitlist] reverse-proxy tests SKIPPED: ${skip}`);

interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  text: string;
}

describe.skipIf(Boolean(skip))('two instances behind nginx with TLS (deploy/nginx.conf)', () => {
  let dir: string;
  let cluster: Cluster;
  let a: TestServer;
  let b: TestServer;
  let nginx: ResultPromise;
  let agent: Agent;
  let origin: string; // https://127.0.0.1:<port>, what a browser sees
  let httpPort: number;
  let cookie = '';
  const password = 'a long password';
  const ownerEmail = uniqueEmail('proxy-owner');
  let project: { projectId: string; slug: string; key: string };

  /** One HTTPS request through nginx, trusting only the test's own certificate. */
  function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
    const h: Record<string, string> = { ...headers };
    if (cookie && !('cookie' in h)) h.cookie = cookie;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    if (payload) h['content-type'] ??= 'application/json';
    return new Promise((resolve, reject) => {
      const req = request(`${origin}${path}`, { method, headers: h, agent, timeout: 10_000 }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode!, headers: res.headers, body: parsed, text });
        });
      });
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
      req.on('error', reject);
      req.end(payload);
    });
  }
  const instanceOf = (r: Res): string => String(r.headers['x-request-id']).split('-')[0] ?? '';
  const signUp = (email: string, headers: Record<string, string> = {}) =>
    call('POST', `/v1/waitlist/${project.slug}/join`, { email }, { authorization: `Bearer ${project.key}`, cookie: '', ...headers });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waitlist-proxy-'));
    chmodSync(dir, 0o755); // nginx workers run as an unprivileged user
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    await execa(OPENSSL!, [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ]);
    agent = new Agent({ ca: readFileSync(cert), keepAlive: true, maxSockets: 8 });

    cluster = await startCluster();
    const boot = new pg.Client({ connectionString: cluster.url() });
    await boot.connect();
    await boot.query('CREATE DATABASE waitlist');
    await boot.end();
    const reuse = { dbFile: '/nonexistent', dbEnv: { DATABASE_URL: cluster.url('waitlist') } };
    // Only the proxy on loopback is trusted for X-Forwarded-For / X-Forwarded-Proto.
    const args = ['--trust-proxy', '127.0.0.1'];
    [a, b] = await Promise.all([startServer({ reuse, args }), startServer({ reuse, args })]);

    const httpsPort = await freePort();
    httpPort = await freePort();
    origin = `https://127.0.0.1:${httpsPort}`;
    const vars: Record<string, string> = {
      WAITLIST_SERVER_NAME: 'localhost 127.0.0.1',
      WAITLIST_HTTP_PORT: `127.0.0.1:${httpPort}`,
      WAITLIST_HTTPS_PORT: `127.0.0.1:${httpsPort}`,
      WAITLIST_TLS_CERT: cert,
      WAITLIST_TLS_KEY: key,
      WAITLIST_UPSTREAM_A: new URL(a.url).host,
      WAITLIST_UPSTREAM_B: new URL(b.url).host,
    };
    // What envsubst does with the named variables; anything left over is a placeholder we missed.
    const site = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8').replace(/\$\{(WAITLIST_[A-Z_]+)\}/g, (_, v: string) => vars[v]!);
    expect(
      site
        .split('\n')
        .filter((l) => !l.trim().startsWith('#'))
        .join('\n'),
    ).not.toMatch(/\$\{/);
    writeFileSync(join(dir, 'waitlist.conf'), site);
    for (const t of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, `tmp-${t}`), { mode: 0o777 });
    // The minimal main configuration around it (a real host has /etc/nginx/nginx.conf for this).
    writeFileSync(
      join(dir, 'nginx.conf'),
      `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/tmp-body;
  proxy_temp_path ${dir}/tmp-proxy;
  fastcgi_temp_path ${dir}/tmp-fastcgi;
  uwsgi_temp_path ${dir}/tmp-uwsgi;
  scgi_temp_path ${dir}/tmp-scgi;
  types { text/html html; }
  include ${dir}/waitlist.conf;
}
`,
    );
    await execa(NGINX!, ['-t', '-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')]);
    nginx = execa(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { reject: false });
    const until = Date.now() + 10_000;
    for (;;) {
      const up = await call('GET', '/healthz').catch(() => undefined);
      if (up?.status === 200) break;
      if (Date.now() > until) throw new Error(`nginx did not come up:\n${readFileSync(join(dir, 'error.log'), 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // The owner signs up through the proxy, as a browser would (same-origin Origin header).
    const signup = await call('POST', '/api/auth/signup', { email: ownerEmail, password }, { origin });
    expect(signup.status).toBe(201);
    const setCookie = String(signup.headers['set-cookie']);
    expect(setCookie).toMatch(/waitlist_session=[^;]+; .*Secure/);
    expect(setCookie).toMatch(/HttpOnly/);
    cookie = /waitlist_session=[^;]+/.exec(setCookie)![0];
    const p = await call('POST', '/api/project', { name: 'Behind nginx' }, { origin });
    expect(p.status).toBe(201);
    const k = await call('POST', `/api/project/${p.body.data.projectId}/apikey`, { name: 'proxy' }, { origin });
    expect(k.status).toBe(201);
    project = { projectId: p.body.data.projectId, slug: p.body.data.slug, key: k.body.data.key };
  });

  afterAll(async () => {
    agent?.destroy();
    if (nginx) {
      nginx.kill('SIGTERM');
      await nginx;
    }
    await Promise.all([a?.stop(), b?.stop()]);
    await cluster?.destroy();
    if (dir && process.env.KEEP_PROXY_DIR) console.log(`nginx dir kept: ${dir}`);
    else if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('joins over TLS are spread over both instances, with the client IP and country from X-Forwarded-For', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const r = await signUp(uniqueEmail('spread'));
      expect(r.status).toBe(201);
      seen.add(instanceOf(r));
    }
    expect(seen.size).toBe(2);

    const stored = async (headers: Record<string, string>) => {
      const r = await signUp(uniqueEmail('ip'), headers);
      expect(r.status).toBe(201);
      const e = await call('GET', `/api/project/${project.projectId}/waitlist/${r.body.data.entryId}`);
      return { ip: e.body.data.ip, country: e.body.data.country };
    };
    // nginx appends its peer (127.0.0.1, trusted) to what the client sent; the instance takes the
    // right-most hop it does not trust.
    expect(await stored({ 'x-forwarded-for': '8.8.8.8' })).toEqual({ ip: '8.8.8.8', country: 'US' });
    expect(await stored({ 'x-forwarded-for': '6.6.6.6, 1.1.1.1' })).toEqual({ ip: '1.1.1.1', country: 'AU' });
    expect(await stored({})).toEqual({ ip: '127.0.0.1', country: null });
  });

  it('the management API through the proxy: Origin of the proxy passes, a foreign or plain-HTTP origin is refused', async () => {
    const mine = await call('POST', '/api/project', { name: 'Same origin' }, { origin });
    expect(mine.status).toBe(201);
    for (const foreign of ['https://evil.example', origin.replace('https:', 'http:'), `https://127.0.0.1:${httpPort}`]) {
      const r = await call('POST', '/api/project', { name: 'Cross origin' }, { origin: foreign });
      expect(r.status, foreign).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
    // A fresh log-in over HTTPS gets a Secure cookie too.
    const login = await call('POST', '/api/auth/login', { email: ownerEmail, password }, { origin, cookie: '' });
    expect(login.status).toBe(200);
    expect(String(login.headers['set-cookie'])).toMatch(/; Secure/);
    // Plain HTTP on the proxy only redirects to HTTPS.
    const plain = await new Promise<{ status: number; location?: string }>((resolve, reject) => {
      httpRequest(`http://127.0.0.1:${httpPort}/api/auth/me`, (res) => {
        res.resume();
        resolve({ status: res.statusCode!, location: res.headers.location });
      })
        .on('error', reject)
        .end();
    });
    expect(plain.status).toBe(308);
    expect(plain.location).toMatch(/^https:\/\/127\.0\.0\.1\/api\/auth\/me$/);
  });

  it('serves the dashboard through the proxy', async () => {
    const page = await call('GET', '/', undefined, { cookie: '' });
    expect(page.status).toBe(200);
    expect(String(page.headers['content-type'])).toMatch(/text\/html/);
    const script = /<script[^>]+src="([^"]+)"/.exec(page.text)?.[1];
    expect(script).toBeTruthy();
    const asset = await call('GET', new URL(script!, origin).pathname, undefined, { cookie: '' });
    expect(asset.status).toBe(200);
    expect(String(asset.headers['content-type'])).toMatch(/javascript/);
  });

  it.skipIf(!HAVE_CHROMIUM)(
    'the dashboard in Chromium over HTTPS: log in, the Secure cookie and the Origin check work through the proxy',
    async () => {
      const browser = await launchChromium();
      try {
        // The certificate is self-signed: this browser context accepts it; nothing else is relaxed.
        const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
        const page = await ctx.newPage();
        page.setDefaultTimeout(15_000);
        await page.goto(`${origin}/`);
        await page.getByRole('heading', { name: 'Log in', level: 1 }).waitFor();
        await page.getByLabel('Email').fill(ownerEmail);
        await page.getByLabel('Password').fill(password);
        await page.getByRole('button', { name: 'Log in' }).click();
        await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
        await page.getByRole('link', { name: 'Behind nginx' }).waitFor();
        const [session] = (await ctx.cookies()).filter((c) => c.name === 'waitlist_session');
        expect(session).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });
      } finally {
        await browser.close();
      }
    },
  );

  it('a rolling restart under load (SIGTERM, then a new process on the same port): every join answered 201', async () => {
    const outcomes: { status: number; by: string }[] = [];
    let running = true;
    const worker = async () => {
      while (running) {
        const r = await signUp(uniqueEmail('rolling'));
        outcomes.push({ status: r.status, by: instanceOf(r) });
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    const restart = async (old: TestServer) => {
      const port = new URL(old.url).port;
      await new Promise((r) => setTimeout(r, 300));
      await old.stop('SIGTERM'); // finishes what it is answering, then exits 0
      expect(old.proc.exitCode).toBe(0);
      // What systemd does on `restart`: the next version starts on the same port.
      const next = await startServer({
        reuse: { dbFile: '/nonexistent', dbEnv: old.dbEnv },
        args: ['--trust-proxy', '127.0.0.1', '--port', port],
      });
      // As docs/deploy.md says: the new process is ready, and nginx sends it traffic again (after its
      // fail_timeout of 2 s), before the next instance goes down.
      const ready = await fetch(`${next.url}/readyz`);
      expect(ready.status).toBe(200);
      const id = String(ready.headers.get('x-request-id')).split('-')[0];
      const until = Date.now() + 10_000;
      while (instanceOf(await call('GET', '/healthz')) !== id) {
        expect(Date.now()).toBeLessThan(until);
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 300));
      return next;
    };
    try {
      a = await restart(a);
      b = await restart(b);
    } finally {
      running = false;
      await Promise.all(workers);
    }
    const failed = outcomes.filter((o) => o.status !== 201);
    console.log(
      `[rolling] ${outcomes.length} joins through nginx during two restarts: ${failed.length} not 201 (${failed.map((o) => o.status).join(', ')})`,
    );
    // Joins in flight inside a stopping instance (or racing the close of an idle keep-alive
    // connection) are replayed by nginx on the other one (deploy/nginx.conf): nothing fails.
    expect(failed).toEqual([]);
    expect(new Set(outcomes.filter((o) => o.status === 201).map((o) => o.by)).size).toBe(4); // two old processes, two new ones
  });

  it('one instance killed under load: the proxy keeps serving from the other, no join lost or stored twice', async () => {
    const outcomes: { email: string; status: number; by: string; at: number }[] = [];
    let running = true;
    const worker = async () => {
      while (running) {
        const email = uniqueEmail('failover');
        const r = await signUp(email);
        outcomes.push({ email, status: r.status, by: instanceOf(r), at: Date.now() });
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    // Kill only once both instances have answered joins (on a busy machine that can take a while).
    const both = () => new Set(outcomes.map((o) => o.by)).size === 2;
    for (let waited = 0; waited < 30_000 && (waited < 400 || !both()); waited += 50) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 150));
    a.proc.kill('SIGKILL');
    await a.proc;
    const killedAt = Date.now();
    await new Promise((r) => setTimeout(r, 1_500));
    running = false;
    await Promise.all(workers);

    // Joins that were inside the killed process are replayed by nginx on the other instance: 201, or
    // 409 email_taken when the dead one had committed it before dying. Nothing else, nothing lost.
    const replayed = outcomes.filter((o) => o.status === 409);
    expect(outcomes.filter((o) => o.status !== 201 && o.status !== 409)).toEqual([]);
    expect(replayed.length).toBeLessThanOrEqual(4);
    const after = outcomes.filter((o) => o.at > killedAt + 100);
    expect(after.length).toBeGreaterThan(10);
    // A replayed join (409, counted above) can answer after the kill when the machine is busy; every other
    // answer after it is a 201 from the surviving instance.
    expect(after.filter((o) => o.status !== 201 && o.status !== 409)).toEqual([]);
    expect(new Set(after.map((o) => o.by)).size).toBe(1);
    expect(new Set(outcomes.filter((o) => o.at < killedAt - 100).map((o) => o.by)).size).toBe(2);

    const answered = outcomes.map((o) => o.email.toLowerCase());
    const db = new pg.Client({ connectionString: cluster.url('waitlist') });
    await db.connect();
    try {
      const { rows } = await db.query<{ email_norm: string; n: string }>(
        'SELECT email_norm, count(*) AS n FROM entries WHERE project_id = $1 AND email_norm = ANY($2) GROUP BY email_norm',
        [project.projectId, answered],
      );
      expect(rows.length).toBe(answered.length); // every 201 and every 409 is stored…
      expect(rows.every((r) => r.n === '1')).toBe(true); // …exactly once
    } finally {
      await db.end();
    }
    // The management API keeps working through the proxy too.
    expect((await call('GET', `/api/project/${project.projectId}/stats`)).status).toBe(200);
    console.log(
      `[failover] ${outcomes.length} joins through nginx: ${outcomes.length - replayed.length} × 201, ${replayed.length} × 409 (committed by the killed instance, replayed)`,
    );
  });
});
