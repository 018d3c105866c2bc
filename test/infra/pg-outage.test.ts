// PostgreSQL outages against the real server: a throwaway cluster (never the shared one) stopped and
// started under load, a table locked past the statement timeout, the role out of connection slots.
// Every answer is 201 or 503 service_unavailable with Retry-After — never a 500, never a hung request —
// nothing acknowledged is lost, and /readyz follows the database.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, projectWithKey, signedUp, startServer, uniqueEmail, type TestServer } from '../helpers/server.js';
import { clusterUnavailableReason, startCluster, type Cluster } from '../helpers/pg-cluster.js';

const skip = clusterUnavailableReason();
if (skip) console.warn(`[waitlist] PostgreSQL outage tests SKIPPED: ${skip}`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// A request still open after this long counts as hung (the server's own bounds are 1 s here).
const HANG_MS = 8_000;

interface Outcome {
  email: string;
  status: number | 'hung' | 'network';
  code?: string;
  retryAfter?: string | null;
  ms: number;
  at: number;
}

describe.skipIf(Boolean(skip))('PostgreSQL outages', () => {
  let cluster: Cluster;
  let srv: TestServer;
  let admin: pg.Client; // superuser on the app database, to look and to lock
  let owner: Client;
  let project: { projectId: string; slug: string; key: string };

  beforeAll(async () => {
    cluster = await startCluster({ max_connections: 40 });
    const boot = new pg.Client({ connectionString: cluster.url() });
    await boot.connect();
    // The server logs in as an ordinary role (connection limits do not bind superusers).
    await boot.query('CREATE ROLE app LOGIN');
    await boot.query('CREATE DATABASE waitlist OWNER app');
    await boot.end();
    admin = await adminClient();
    srv = await startServer({
      reuse: { dbFile: '/nonexistent', dbEnv: { DATABASE_URL: cluster.url('waitlist', 'app') } },
      // Rate limits on (their counters live in PostgreSQL too), high enough not to bite.
      env: { WAITLIST_RATE_LIMIT: 'on' },
      args: ['--join-limit', '1000000', '--pg-connect-timeout', '1', '--pg-statement-timeout', '1', '--pg-pool-size', '4'],
    });
    owner = await signedUp(srv.url);
    project = await projectWithKey(owner);
  });

  afterAll(async () => {
    await srv?.stop();
    await admin?.end().catch(() => undefined);
    await cluster?.destroy();
  });

  async function adminClient() {
    const c = new pg.Client({ connectionString: cluster.url('waitlist') });
    c.on('error', () => undefined); // it dies with the cluster in the outage test; reconnected after
    await c.connect();
    return c;
  }

  async function join(email: string): Promise<Outcome> {
    const started = Date.now();
    try {
      const r = await fetch(`${srv.url}/v1/waitlist/${project.slug}/join`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${project.key}` },
        body: JSON.stringify({ email }),
        signal: AbortSignal.timeout(HANG_MS),
      });
      const body = (await r.json()) as { error?: { code: string } };
      return {
        email,
        status: r.status,
        code: body.error?.code,
        retryAfter: r.headers.get('retry-after'),
        ms: Date.now() - started,
        at: started,
      };
    } catch (err) {
      const hung = err instanceof Error && err.name === 'TimeoutError';
      return { email, status: hung ? 'hung' : 'network', ms: Date.now() - started, at: started };
    }
  }

  async function readyz() {
    const r = await new Client(srv.url).get('/readyz');
    return { status: r.status, body: r.body, retryAfter: r.headers.get('retry-after') };
  }

  async function waitReady(want: number, withinMs: number) {
    const until = Date.now() + withinMs;
    let last = await readyz();
    while (last.status !== want && Date.now() < until) {
      await sleep(200);
      last = await readyz();
    }
    return last;
  }

  function expectOnly201or503(outcomes: Outcome[]) {
    const bad = outcomes.filter((o) => o.status !== 201 && !(o.status === 503 && o.code === 'service_unavailable'));
    expect(bad.slice(0, 5), `${bad.length} answers other than 201 / 503`).toEqual([]);
    for (const o of outcomes.filter((x) => x.status === 503)) expect(Number(o.retryAfter)).toBeGreaterThanOrEqual(1);
  }

  it('joins under load: 503 while PostgreSQL is stopped, 201 again after, nothing acknowledged lost; /readyz follows', async () => {
    expect((await readyz()).status).toBe(200);
    const outcomes: Outcome[] = [];
    let running = true;
    const worker = async (w: number) => {
      for (let i = 0; running; i++) outcomes.push(await join(uniqueEmail(`load${w}x${i}`)));
    };
    const workers = Array.from({ length: 8 }, (_, w) => worker(w));

    await sleep(1_000);
    // Taken once PostgreSQL is down (pg_ctl waits): on a busy machine a fast shutdown can take longer
    // than the 500 ms of slack below, and a join sent while it was still finishing may commit.
    await cluster.stop('fast');
    const stoppedAt = Date.now();
    await sleep(2_500);
    const down = await waitReady(503, 3_000);
    // The management API answers 503 too (its session lookup needs the database).
    const mgmt = await owner.get(`/api/project/${project.projectId}/waitlist`);
    await sleep(500);
    const restartAt = Date.now();
    await cluster.start();
    const up = await waitReady(200, 10_000);
    const readyAt = Date.now();
    await sleep(2_500);
    running = false;
    await Promise.all(workers);

    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('service_unavailable');
    expect(down.body.message).toMatch(/^Not ready: database: /);
    expect(Number(down.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(mgmt.status).toBe(503);
    expect(mgmt.body.error.code).toBe('service_unavailable');
    expect(up.status).toBe(200);

    expectOnly201or503(outcomes);
    const during = outcomes.filter((o) => o.at > stoppedAt + 500 && o.at + o.ms < restartAt);
    const after = outcomes.filter((o) => o.at > readyAt + 1_000);
    expect(during.length).toBeGreaterThan(0);
    expect(during.every((o) => o.status === 503)).toBe(true);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((o) => o.status === 201)).toBe(true);
    expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(HANG_MS);

    // Every acknowledged join is stored (the admin connection died with the server: reconnect).
    await admin.end().catch(() => undefined);
    admin = await adminClient();
    const acked = outcomes.filter((o) => o.status === 201).map((o) => o.email.toLowerCase());
    const { rows } = await admin.query<{ email_norm: string }>(
      'SELECT email_norm FROM entries WHERE project_id = $1 AND email_norm = ANY($2)',
      [project.projectId, acked],
    );
    expect(rows.length).toBe(acked.length);
    // The log says why, without one line per refused request.
    const logged = srv
      .output()
      .split('\n')
      .filter((l) => l.includes('database unavailable'));
    expect(logged.some((l) => /PostgreSQL is unreachable \(ECONNREFUSED\)/.test(l))).toBe(true);
    expect(logged.length).toBeLessThan(30);
    expect(srv.output()).not.toMatch(/internal error/);
    console.log(
      `[outage] ${logged.length} log lines for the outage; ${outcomes.length} joins: ${acked.length} × 201, ${outcomes.filter((o) => o.status === 503).length} × 503; ` +
        `slowest ${Math.max(...outcomes.map((o) => o.ms))} ms`,
    );
  });

  it('a table locked past the statement timeout answers 503 in bounded time, and 201 once released', async () => {
    await admin.query('BEGIN');
    await admin.query('LOCK TABLE entries IN ACCESS EXCLUSIVE MODE');
    try {
      const blocked = await Promise.all(Array.from({ length: 6 }, () => join(uniqueEmail('locked'))));
      expect(blocked.map((o) => o.status)).toEqual(Array(6).fill(503));
      expect(blocked.every((o) => o.code === 'service_unavailable')).toBe(true);
      // statement_timeout (1 s) and the pool's acquire timeout (1 s) bound each one.
      expect(Math.max(...blocked.map((o) => o.ms))).toBeLessThan(5_000);
    } finally {
      await admin.query('ROLLBACK');
    }
    expect((await join(uniqueEmail('released'))).status).toBe(201);
  });

  it('no free connection slot (53300) answers 503, and 201 once slots are back', async () => {
    await admin.query('ALTER ROLE app CONNECTION LIMIT 0');
    try {
      // Drop the server's pooled connections, so its next request has to open a new one.
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'app'");
      await sleep(200);
      const refused = await Promise.all(Array.from({ length: 4 }, () => join(uniqueEmail('slots'))));
      expect(refused.map((o) => o.status)).toEqual(Array(4).fill(503));
      expect(refused.every((o) => Number(o.retryAfter) >= 1)).toBe(true);
      expect(srv.output()).toMatch(/no free connection slots \(53300\)|connection to PostgreSQL was lost/);
    } finally {
      await admin.query('ALTER ROLE app CONNECTION LIMIT -1');
    }
    expect((await join(uniqueEmail('slots-back'))).status).toBe(201);
    expect(srv.output()).not.toMatch(/internal error/);
  });

  it('a database switched to read-only (25006) answers 503 on writes; /readyz says so; back to 201 after', async () => {
    await sleep(1_100); // past the cached readiness answer
    await admin.query('ALTER DATABASE waitlist SET default_transaction_read_only = on');
    try {
      // The setting applies to new sessions: drop the server's pooled ones.
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'app'");
      await sleep(200);
      const refused = await join(uniqueEmail('readonly'));
      expect(refused.status).toBe(503);
      expect(refused.code).toBe('service_unavailable');
      const ready = await waitReady(503, 3_000);
      expect(ready.body.message).toBe('Not ready: database: the database is read-only');
    } finally {
      await admin.query('ALTER DATABASE waitlist SET default_transaction_read_only = off');
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'app'");
    }
    await sleep(200);
    expect((await waitReady(200, 5_000)).status).toBe(200);
    expect((await join(uniqueEmail('writable'))).status).toBe(201);
  });

  it('a frozen database (connections accepted, nothing answered) → 503 within the configured bounds, not a hang', async () => {
    await sleep(1_100); // past the cached readiness answer
    const pids = await cluster.pids();
    for (const pid of pids) process.kill(pid, 'SIGSTOP');
    try {
      const started = Date.now();
      const [frozen, ready] = await Promise.all([Promise.all(Array.from({ length: 6 }, () => join(uniqueEmail('frozen')))), readyz()]);
      // Pooled connections: the client-side bound (statement timeout 1 s + 5 s) ends them, as a
      // frozen server cannot enforce its own statement_timeout; new ones: the 1 s connect timeout.
      expect(frozen.map((o) => o.status)).toEqual(Array(6).fill(503));
      expect(Date.now() - started).toBeLessThan(HANG_MS);
      expect(ready.status).toBe(503);
      // No answer within the check's 2 s, the 1 s connect timeout, or (when the frozen joins hold every
      // pooled connection) the pool's acquire timeout: whichever comes first, not ready.
      expect(ready.body.message).toMatch(
        /^Not ready: database: (no answer within 2000 ms|the connection to PostgreSQL was lost|connecting to PostgreSQL timed out|no database connection became free in time \(pool acquire timeout\))$/,
      );
    } finally {
      for (const pid of pids) process.kill(pid, 'SIGCONT');
    }
    expect((await waitReady(200, 10_000)).status).toBe(200);
    expect((await join(uniqueEmail('thawed'))).status).toBe(201);
  });
});
