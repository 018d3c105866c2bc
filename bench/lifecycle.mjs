// Lifecycle figures (issue 13): one project of SIZE entries, 10% of them referred by an earlier entry,
// referralBoost 5. Measures, over HTTP against the built server:
//   - a subscriber's status with its exact position (GET /v1/waitlist/:slug/status), p50 at several depths
//   - list page 1 sorted by position, p50
//   - inviting the next 10,000 (POST /api/project/:id/invites), median of 3 batches
//   - join throughput with a `ref` on every join, and on one join in ten, vs none; same server, mirrored runs
// Called from bench/run.mjs (one-line hook) with its helpers, or alone:
//   node bench/lifecycle.mjs [--size N] [--database-url URL]
import { createHash, randomBytes } from 'node:crypto';
import { COLUMNS, entries, indexQueued } from './seed.mjs';
import { autocannonJoins, cpuMs, hasWrk, listening, wrkJoins } from './load.mjs';
import { api, OWNER } from './http.mjs';

const sha256 = (s) => createHash('sha256').update(s).digest('hex');
const BOOST = 5;
/** The seed's columns and the referral ones. */
const LC_COLUMNS = [...COLUMNS, 'referral_code', 'referred_by', 'referrals', 'status_token_hash'];

/**
 * The seeded rows with the lifecycle columns: ordinals 1..n, 10% referred, k = ordinal − boost × referrals.
 * Every row has a status-token hash and a referral code, random like those of a waitlist that grew
 * before codes and tokens had a time prefix (12-character codes, bare SHA-256 hashes): new ones from
 * the joins under load then go into indexes already full of random keys, as they would in real use.
 */
function lifecycleRows(projectId, n) {
  const refOf = new Int32Array(n).fill(-1);
  const refs = new Int32Array(n);
  const rnd = randomBytes(n * 4);
  const codeBytes = randomBytes(n * 9);
  const tokenBytes = randomBytes(n * 32);
  for (let i = 1; i < n; i++) {
    if (i % 10 === 3) {
      const r = rnd.readUInt32LE(i * 4) % i;
      refOf[i] = r;
      refs[r]++;
    }
  }
  const base = [...entries(projectId, n)];
  return base.map((e, i) => ({
    ...e,
    status: 'waiting',
    ordinal: i + 1,
    k: i + 1 - BOOST * refs[i],
    referral_code: codeBytes.toString('base64url', i * 9, i * 9 + 9),
    status_token_hash: tokenBytes.toString('hex', i * 32, i * 32 + 32),
    referred_by: refOf[i] >= 0 ? base[refOf[i]].id : null,
    referrals: refs[i],
  }));
}

export async function seedSqliteLc(file, projectId, n) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -200000');
  const stmt = db.prepare(`INSERT INTO entries (${LC_COLUMNS.join(', ')}) VALUES (${LC_COLUMNS.map((c) => '@' + c).join(', ')})`);
  const rows = lifecycleRows(projectId, n);
  db.transaction(() => {
    for (const r of rows) stmt.run(r);
    db.prepare(
      'INSERT INTO entry_ordinals (project_id, last) VALUES (?, ?) ON CONFLICT(project_id) DO UPDATE SET last = excluded.last',
    ).run(projectId, n);
  })();
  indexQueued(db);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return rows;
}

async function seedPgLc(url, projectId, n) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const rows = lifecycleRows(projectId, n);
  try {
    const ints = new Set(['created_at', 'updated_at', 'deleted_at', 'ordinal', 'k', 'referrals']);
    const arrays = LC_COLUMNS.map((c, i) => `$${i + 1}::${ints.has(c) ? 'bigint' : 'text'}[]`).join(', ');
    const sql = `INSERT INTO entries (${LC_COLUMNS.join(', ')}) SELECT * FROM unnest(${arrays})`;
    for (let i = 0; i < n; i += 10_000) {
      const chunk = rows.slice(i, i + 10_000);
      await client.query(
        sql,
        LC_COLUMNS.map((c) => chunk.map((r) => (r[c] === null ? null : String(r[c])))),
      );
    }
    await client.query(
      'INSERT INTO entry_ordinals (project_id, last) VALUES ($1, $2) ON CONFLICT (project_id) DO UPDATE SET last = EXCLUDED.last',
      [projectId, n],
    );
    await client.query('ANALYZE entries');
  } finally {
    await client.end();
  }
  return rows;
}

/** Sets status token hashes on the rows at the given indexes (directly: tokens exist only at join). */
async function plantTokens(db, rows, idx) {
  const tokens = idx.map((i) => ({ id: rows[i].id, token: `bench-${i}-${randomBytes(8).toString('hex')}` }));
  if (db.url) {
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    for (const t of tokens) await c.query('UPDATE entries SET status_token_hash = $1 WHERE id = $2', [sha256(t.token), t.id]);
    await c.end();
  } else {
    const { default: Database } = await import('better-sqlite3');
    const d = new Database(db.file);
    for (const t of tokens) d.prepare('UPDATE entries SET status_token_hash = ? WHERE id = ?').run(sha256(t.token), t.id);
    d.close();
  }
  return tokens;
}

/**
 * One join load of `seconds` at 64 connections: wrk -t1 when installed (the server is the bottleneck,
 * as in bench/run.mjs), else autocannon (in this process: on two cores it can become the bottleneck
 * itself, which pulls every ratio towards 100 %). `refsFile` holds the referral codes; every
 * 1/share-th join carries one. Answers joins/s, non-2xx and the server's CPU per join in µs.
 */
async function joinLoad(srv, slug, key, { seconds, refs, refsFile, share = 1, run }) {
  const every = refs ? Math.round(1 / share) : 0;
  const c0 = cpuMs(srv.child.pid);
  let r;
  if (hasWrk) {
    const w = await wrkJoins(srv.url, `/v1/waitlist/${slug}/join`, key, {
      seconds,
      run: `lc${run}`,
      env: { WL_REF_EVERY: String(every), WL_REFS: refsFile ?? '' },
    });
    r = { rps: w.rps, requests: w.requests, non2xx: w.non2xx + w.socketErrors };
  } else {
    const a = await autocannonJoins(srv.url, slug, key, seconds, (i) => {
      /** @type {Record<string, unknown>} */
      const body = { email: `lc${run}-${i}@bench.example`, name: `Bench ${i}`, source: 'autocannon' };
      if (refs && (i + 1) % every === 0) body.ref = refs[((i + 1) * 7919) % refs.length];
      return body;
    });
    r = { rps: a.rps, requests: a.total, non2xx: a.non2xx + a.errors };
  }
  const cpuUs = ((cpuMs(srv.child.pid) - c0) * 1000) / Math.max(1, r.requests);
  return { ...r, cpuUs };
}

/** CHECKPOINT on PostgreSQL (needs superuser or pg_checkpoint; without it the runs go unaligned). */
let checkpointRefused = false;
async function checkpoint(url) {
  if (checkpointRefused) return;
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('CHECKPOINT');
  } catch (err) {
    checkpointRefused = true;
    process.stderr.write(
      `· lifecycle: CHECKPOINT refused (${/** @type {Error} */ (err).message}); runs are not aligned with checkpoints\n`,
    );
  } finally {
    await c.end();
  }
}

/** The smallest seed the rows below can run on: their three invites of 10,000 take 30,000 waiting entries. */
const MIN_SIZE = 40_000;

/** The lifecycle rows of the bench table. `h` holds run.mjs's helpers. */
export async function benchLifecycle(h) {
  const { SIZE, log, row, fmt, freshDb, startServer, stop, api, setUp, p50, timed } = h;
  const seconds = h.LOAD_S ?? 8;
  log(`lifecycle: seeding ${SIZE.toLocaleString('en')} entries, 10% referred, referralBoost ${BOOST}`);
  const db = await freshDb('lifecycle');
  let srv = await startServer(db);
  const s = await setUp(srv.url, 'queue');
  await api(srv.url, 'PUT', `/api/project/${s.projectId}/settings`, { referralBoost: BOOST }, s.cookie);
  await stop(srv.child);
  const rows = db.url ? await seedPgLc(db.url, s.projectId, SIZE) : await seedSqliteLc(db.file, s.projectId, SIZE);
  const depths = [0.01, 0.5, 0.99].map((f) => Math.floor(f * (SIZE - 1)));
  const tokens = await plantTokens(db, rows, depths);
  // Server-side times come from the access log (--log-requests: each line ends with the handler's ms).
  process.env.WAITLIST_LOG = 'requests';
  srv = await startServer(db);
  delete process.env.WAITLIST_LOG;
  const logged = [];
  const onLog = (c) => {
    for (const m of String(c).matchAll(/ (GET|POST) (\S+) (\d{3}) ([\d.]+)ms/g))
      logged.push({ path: m[2], status: m[3], ms: Number(m[4]) });
  };
  srv.child.stdout.on('data', onLog);
  srv.child.stderr.on('data', onLog);
  const settle = () => new Promise((r) => setTimeout(r, 50));
  const serverP50 = async (path) => {
    await settle();
    const xs = logged
      .filter((l) => l.path === path)
      .slice(1)
      .map((l) => l.ms); // the first is the warm-up
    logged.length = 0;
    return xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] : NaN;
  };
  const login = await api(srv.url, 'POST', '/api/auth/login', OWNER);
  const cookie = login.cookie;

  const statusP50 = [];
  logged.length = 0;
  for (const t of tokens) {
    const r = await p50(srv.url, `/v1/waitlist/queue/status?token=${encodeURIComponent(t.token)}`);
    statusP50.push({ ms: r.ms, server: await serverP50('/v1/waitlist/queue/status'), position: r.body.data.position });
  }
  const worst = Math.max(...statusP50.map((x) => x.server));
  row(
    `status with exact position, server-side p50 ms (${SIZE.toLocaleString('en')} entries, 10% referred; positions ${statusP50.map((x) => x.position).join(' / ')})`,
    `${statusP50.map((x) => fmt(x.server, 1)).join(' / ')} (HTTP round trip ${statusP50.map((x) => fmt(x.ms, 1)).join(' / ')})`,
    '≤ 5',
    '–',
    worst <= 5,
  );
  const page1 = await p50(srv.url, `/api/project/${s.projectId}/waitlist?sort=position`, cookie);
  const page1Server = await serverP50(`/api/project/${s.projectId}/waitlist`);
  row(
    'entry list page 1 sorted by position, server-side p50 ms',
    `${fmt(page1Server, 1)} (HTTP ${fmt(page1.ms, 1)})`,
    '≤ 10',
    '–',
    page1Server <= 10,
  );

  const inviteMs = [];
  for (let i = 0; i < 3; i++) {
    const { ms, r } = await timed(() => api(srv.url, 'POST', `/api/project/${s.projectId}/invites`, { count: 10_000 }, cookie));
    if (r.status !== 200 || r.json.data.invited.length !== 10_000) throw new Error(`invite failed: ${r.status}`);
    inviteMs.push(ms);
  }
  const inviteMed = [...inviteMs].sort((a, b) => a - b)[1];
  row(
    'invite the next 10,000 (HTTP, median of 3), ms',
    `${fmt(inviteMed, 0)} (${inviteMs.map((x) => fmt(x, 0)).join(', ')})`,
    '≤ 2000',
    '–',
    inviteMed <= 2000,
  );

  // Join throughput: every join with a ref (each credits a referrer), one join in ten with a ref (the
  // seed's share of referred entries), and none, in the order plain, ref, mix, mix, ref, plain (twice),
  // with a pause before each run. On PostgreSQL each run starts right after a CHECKPOINT: a checkpoint
  // that falls inside a run makes every page's next change write a full page image to the WAL, which
  // measured the same load at 70 % of itself from one run to the next; after a CHECKPOINT every run
  // pays that cost from its start. Each run adds tens of thousands of entries and leaves work behind (search
  // indexing, the outbox fan-out), so a run is slower than the one before it: run always second, the
  // same plain load measured 80 % of itself (A/A control, 2026-11-23). The mirrored order gives every
  // kind the same average table size and the same share of leftovers.
  // The join loads run on a server without the access log (which the figures above read), after a
  // warm-up of 3 × LOAD_S of mixed joins: a server just started reads most pages of a large database
  // from the kernel, not from its page cache, and JIT-compiles the route; its first seconds measured
  // up to 30 % below the same load a minute later (2026-11-25). Throughput is what the server
  // sustains; its CPU time per join (from /proc) is the steadier figure beside it.
  await stop(srv.child);
  srv = await startServer(db);
  const refs = rows.filter((_, i) => i % 97 === 0).map((r) => r.referral_code);
  const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const refsDir = mkdtempSync(join(tmpdir(), 'waitlist-lc-refs-'));
  const refsFile = join(refsDir, 'refs.txt');
  writeFileSync(refsFile, `${refs.join('\n')}\n`);
  log(`lifecycle: join loads with ${hasWrk ? 'wrk -t1' : 'autocannon'} -c64, ${seconds} s each, after a ${3 * seconds} s warm-up`);
  await joinLoad(srv, 'queue', s.key, { seconds: 3 * seconds, refs, refsFile, share: 0.1, run: 'w' });
  /** @type {Record<string, { rps: number, non2xx: number, cpuUs: number }[]>} */
  const runs = { plain: [], ref: [], mix: [] };
  const order = ['plain', 'ref', 'mix', 'mix', 'ref', 'plain'];
  for (const [i, kind] of [...order, ...order].entries()) {
    await new Promise((r) => setTimeout(r, 2000)); // the background work of the last run settles
    if (db.url) await checkpoint(db.url);
    const opts = { seconds, refs: kind === 'plain' ? null : refs, refsFile, share: kind === 'mix' ? 0.1 : 1, run: `${kind[0]}${i}` };
    runs[kind].push(await joinLoad(srv, 'queue', s.key, opts));
  }
  rmSync(refsDir, { recursive: true, force: true });
  /** @typedef {{ rps: number, non2xx: number, cpuUs: number }} Run */
  const avg = (/** @type {Run[]} */ xs, f = (/** @type {Run} */ x) => x.rps) => xs.reduce((a, x) => a + f(x), 0) / xs.length;
  const cpu = (/** @type {Run[]} */ xs) => avg(xs, (x) => x.cpuUs);
  const non2xx = Object.values(runs)
    .flat()
    .reduce((a, x) => a + x.non2xx, 0);
  const ratio = avg(runs.ref) / avg(runs.plain);
  row(
    `join throughput, every join with a ref (credits a referrer) vs none, req/s (${hasWrk ? 'wrk' : 'autocannon'}); server CPU per join`,
    `${fmt(avg(runs.ref), 0)} vs ${fmt(avg(runs.plain), 0)} (${fmt(ratio * 100)}%); ${fmt(cpu(runs.ref), 0)} vs ${fmt(cpu(runs.plain), 0)} µs`,
    '≥ 90%',
    `non-2xx ${non2xx}`,
    ratio >= 0.9,
  );
  const mixRatio = avg(runs.mix) / avg(runs.plain);
  row(
    `join throughput, one join in ten with a ref vs none, req/s (${hasWrk ? 'wrk' : 'autocannon'}); server CPU per join`,
    `${fmt(avg(runs.mix), 0)} vs ${fmt(avg(runs.plain), 0)} (${fmt(mixRatio * 100)}%); ${fmt(cpu(runs.mix), 0)} vs ${fmt(cpu(runs.plain), 0)} µs`,
    '≥ 90%',
    `non-2xx ${non2xx}`,
    mixRatio >= 0.9,
  );
  await stop(srv.child);
}

// Standalone: a minimal copy of run.mjs's helpers.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({ options: { size: { type: 'string', default: '100000' }, 'database-url': { type: 'string' } } });
  if (!Number.isInteger(Number(values.size)) || Number(values.size) < MIN_SIZE) {
    console.error(`--size takes a whole number of at least ${MIN_SIZE.toLocaleString('en')}: the invite row invites 10,000 three times`);
    process.exit(2);
  }
  const { spawn } = await import('node:child_process');
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join, resolve } = await import('node:path');
  const ROOT = resolve(import.meta.dirname, '..');
  const tmp = mkdtempSync(join(tmpdir(), 'waitlist-lc-bench-'));
  const PG = values['database-url'];
  const dbs = [];
  const rows = [];
  const children = new Set();
  const h = {
    SIZE: Number(values.size),
    LOAD_S: 8,
    log: (m) => process.stderr.write(`· ${m}\n`),
    row: (figure, measured, target, baseline, ok) => rows.push({ figure, measured, target, baseline, ok: ok ? 'yes' : 'NO' }),
    fmt: (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : String(n)),
    async freshDb(name) {
      if (!PG) return { file: join(tmp, `${name}.db`) };
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      const dbName = `waitlist_lcbench_${name}_${Date.now()}`;
      await c.query(`CREATE DATABASE ${dbName}`);
      await c.end();
      dbs.push(dbName);
      const u = new URL(PG);
      u.pathname = `/${dbName}`;
      return { url: u.toString() };
    },
    startServer(db) {
      const argv = [
        ...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean), // e.g. --cpu-prof
        join(ROOT, 'bin/waitlist.js'),
        'serve',
        '--port',
        '0',
        '--no-rate-limit',
        ...(db.url ? ['--database-url', db.url] : ['--db', db.file]),
      ];
      const child = spawn('node', argv, { env: { ...process.env, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
      children.add(child);
      return listening(child);
    },
    async stop(child) {
      if (child.exitCode !== null) return;
      const done = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await done;
      children.delete(child);
    },
    api,
    async setUp(base, slug) {
      const s = await h.api(base, 'POST', '/api/auth/signup', OWNER);
      const p = await h.api(base, 'POST', '/api/project', { name: slug, slug }, s.cookie);
      const k = await h.api(base, 'POST', `/api/project/${p.json.data.projectId}/apikey`, { name: 'bench' }, s.cookie);
      return { cookie: s.cookie, projectId: p.json.data.projectId, slug, key: k.json.data.key };
    },
    async timed(fn) {
      const t = process.hrtime.bigint();
      const r = await fn();
      return { ms: Number(process.hrtime.bigint() - t) / 1e6, r };
    },
    async p50(base, path, cookie) {
      const xs = [];
      let last;
      for (let i = 0; i <= 9; i++) {
        const { ms, r } = await h.timed(() => h.api(base, 'GET', path, undefined, cookie));
        if (r.status !== 200) throw new Error(`GET ${path}: ${r.status} ${JSON.stringify(r.json)}`);
        last = r.json;
        if (i > 0) xs.push(ms);
      }
      return { ms: [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)], body: last };
    },
  };
  try {
    await benchLifecycle(h);
    for (const r of rows) console.log(`| ${r.figure} | ${r.measured} | ${r.target} | ${r.baseline} | ${r.ok} |`);
  } finally {
    for (const c of children) c.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
    if (PG && dbs.length) {
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      for (const d of dbs) await c.query(`DROP DATABASE IF EXISTS ${d} WITH (FORCE)`).catch(() => {});
      await c.end();
    }
  }
}
