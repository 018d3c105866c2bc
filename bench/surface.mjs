// The sign-up surface's figures for `npm run bench` (called from bench/run.mjs):
//   import of SIZE CSV rows (1M with --full): wall time and the server's RSS growth while it runs;
//   the hosted page's time to first byte (server on loopback: p50/p99 of sequential GETs);
//   join throughput with captcha "pow" (solutions pre-computed here) against captcha off, same server.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { autocannonJoins, listening } from './load.mjs';
import { api, OWNER } from './http.mjs';

/** Writes an import file of `n` rows shaped like a hosted tool's export (dates in order, a few columns). */
async function writeCsv(file, n) {
  const out = createWriteStream(file);
  out.write('email,first_name,last_name,created_at,utm_source,Company size\n');
  const start = Date.UTC(2024, 0, 1);
  for (let i = 0; i < n; i++) {
    const d = new Date(start + i * 30_000).toISOString().replace('T', ' ').slice(0, 19);
    if (!out.write(`person${i}@import.example,Ada${i % 97},Lovelace${i % 89},${d},src${i % 7},${i % 5}-${i % 50}\n`))
      await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

function solve(c) {
  for (let n = 0; n <= c.maxnumber; n++) {
    if (
      createHash('sha256')
        .update(c.salt + n)
        .digest('hex') === c.challenge
    ) {
      return Buffer.from(
        JSON.stringify({ algorithm: c.algorithm, challenge: c.challenge, number: n, salt: c.salt, signature: c.signature }),
      ).toString('base64');
    }
  }
  throw new Error('unsolvable challenge');
}

function joinLoad(url, slug, key, seconds, run, solutions) {
  return autocannonJoins(url, slug, key, seconds, (i) => {
    /** @type {Record<string, unknown>} */
    const body = { email: `c${run}-${i}@bench.example`, name: `Bench ${i}` };
    if (solutions) body.altcha = solutions[i % solutions.length];
    return body;
  });
}

export async function benchSurface(h) {
  const { SIZE, LOAD_S, tmp, BIN, startProcess, freshDb, setUp, api, log, row, fmt, rssMb, stop } = h;
  const db = await freshDb('surface');
  const argv = [BIN, 'serve', '--port', '0', '--no-rate-limit', '--request-timeout', '3600'];
  if (db.url) argv.push('--database-url', db.url);
  else argv.push('--db', db.file);
  const srv = await startProcess('node', argv, { WAITLIST_RATE_LIMIT: 'off', DATABASE_URL: '' });
  const s = await setUp(srv.url, 'bench-surface');

  // ---- import ----
  const file = join(tmp, 'import.csv');
  log(`import: writing ${SIZE.toLocaleString('en')} CSV rows`);
  await writeCsv(file, SIZE);
  const bytes = statSync(file).size;
  const rss0 = rssMb(srv.child.pid);
  // The server's CPU seconds (user + system) too: on the shared machine the wall time mostly measures
  // the other work; CPU time is what a quiet machine's wall time would approach (plus fsync waits).
  const cpu = () => {
    const f = readFileSync(`/proc/${srv.child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  };
  const cpu0 = cpu();
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(srv.child.pid))), 100);
  log(`import: uploading ${(bytes / 1e6).toFixed(0)} MB`);
  const t0 = process.hrtime.bigint();
  const res = await fetch(`${srv.url}/api/project/${s.projectId}/import?format=csv`, {
    method: 'POST',
    headers: { cookie: s.cookie, 'content-type': 'text/csv' },
    body: Readable.toWeb(createReadStream(file)),
    duplex: 'half',
  });
  const result = /** @type {any} */ (await res.json());
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpuSecs = cpu() - cpu0;
  clearInterval(sampler);
  const imported = result.data?.imported;
  if (imported !== SIZE) log(`import answered ${res.status}: ${JSON.stringify(result).slice(0, 300)}`);
  const growth = peak - rss0;
  const per1M = (secs * 1_000_000) / SIZE;
  row(
    `import ${SIZE.toLocaleString('en')} CSV rows (s; RSS growth MB)`,
    `${fmt(secs)} s (${fmt(SIZE / secs, 0)} rows/s${SIZE < 1e6 ? `, ≈ ${fmt(per1M, 0)} s per 1M` : ''}); +${fmt(growth, 0)} MB`,
    '1M ≤ 60 s; ≤ 200 MB',
    `${(bytes / 1e6).toFixed(0)} MB file, RSS ${fmt(rss0, 0)} MB before; server CPU ${fmt(cpuSecs)} s`,
    imported === SIZE && per1M <= 60 && growth <= 200,
  );
  if (h.IMPORT_ONLY) return stop(srv.child);

  // ---- hosted page ----
  const page = `/w/${s.slug}`;
  const times = [];
  for (let i = 0; i < 300; i++) {
    const t = process.hrtime.bigint();
    const r = await fetch(srv.url + page);
    times.push(Number(process.hrtime.bigint() - t) / 1e6); // headers received = first byte
    await r.arrayBuffer();
  }
  const sorted = times.slice(50).sort((a, b) => a - b); // first 50 warm up
  const p50 = sorted[Math.floor(sorted.length / 2)];
  const p99 = sorted[Math.floor(sorted.length * 0.99)];
  row('hosted page time to first byte (ms, loopback, p50 / p99)', `${fmt(p50, 2)} / ${fmt(p99, 2)}`, 'p50 ≤ 5', '–', p50 <= 5);

  // ---- join throughput, captcha pow vs off ----
  const powSlug = 'bench-pow';
  const p = await api(srv.url, 'POST', '/api/project', { name: powSlug, slug: powSlug }, s.cookie);
  const powId = p.json.data.projectId;
  const powKey = (await api(srv.url, 'POST', `/api/project/${powId}/apikey`, { name: 'bench' }, s.cookie)).json.data.key;
  await api(srv.url, 'PUT', `/api/project/${powId}/settings`, { captcha: 'pow', captchaDifficulty: 1000 }, s.cookie);
  await joinLoad(srv.url, s.slug, s.key, 2, 'w', null);
  const off = await joinLoad(srv.url, s.slug, s.key, LOAD_S, 'off', null);
  const need = Math.ceil(off.rps * LOAD_S * 1.5) + 1000;
  log(`captcha: pre-computing ${need.toLocaleString('en')} solutions`);
  const solutions = [];
  while (solutions.length < need) {
    const batch = await Promise.all(
      Array.from({ length: 32 }, () =>
        fetch(`${srv.url}/v1/waitlist/${powSlug}/challenge`, { headers: { authorization: `Bearer ${powKey}` } }).then(
          async (r) => /** @type {any} */ (await r.json()),
        ),
      ),
    );
    for (const b of batch) solutions.push(solve(b.data));
  }
  const pow = await joinLoad(srv.url, powSlug, powKey, LOAD_S, 'pow', solutions);
  // Off again after pow, as run.mjs brackets its baseline: the list grew and the machine is shared.
  const off2 = await joinLoad(srv.url, s.slug, s.key, LOAD_S, 'off2', null);
  const offRps = (off.rps + off2.rps) / 2;
  const ratio = pow.rps / offRps;
  row(
    'join throughput captcha pow vs off (req/s)',
    `${fmt(pow.rps, 0)} vs ${fmt(offRps, 0)} (${fmt(ratio * 100)}%); non-2xx ${pow.non2xx}`,
    '≥ 80% of off',
    `off runs ${fmt(off.rps, 0)}, ${fmt(off2.rps, 0)}`,
    ratio >= 0.8 && pow.non2xx === 0 && pow.total <= solutions.length,
  );
  await stop(srv.child);
}

// ---- standalone: `node bench/surface.mjs [--full] [--import-only] [--database-url URL]` runs only these figures ----
if (import.meta.url === `file://${process.argv[1]}`) {
  const { spawn } = await import('node:child_process');
  const { mkdtempSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { resolve } = await import('node:path');
  const full = process.argv.includes('--full');
  const urlArg = process.argv.indexOf('--database-url');
  const PG = urlArg > 0 ? process.argv[urlArg + 1] : undefined;
  const ROOT = resolve(import.meta.dirname, '..');
  const tmp = mkdtempSync(join(tmpdir(), 'waitlist-bench-surface-'));
  const rows = [];
  const children = [];
  const h = {
    SIZE: full ? 1_000_000 : 100_000,
    LOAD_S: full ? 20 : 8,
    IMPORT_ONLY: process.argv.includes('--import-only'),
    tmp,
    BIN: join(ROOT, 'bin/waitlist.js'),
    log: (m) => process.stderr.write(`· ${m}\n`),
    fmt: (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : String(n)),
    row: (figure, measured, target, baseline, ok) => rows.push({ figure, measured, target, baseline, ok: ok ? 'yes' : 'NO' }),
    rssMb: (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024,
    startProcess: (cmd, argv, env) => {
      const child = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      return listening(child, cmd);
    },
    stop: async (child) => {
      if (child.exitCode !== null) return;
      const done = once(child, 'exit');
      child.kill('SIGTERM');
      await done;
    },
    freshDb: async (name) => {
      if (!PG) return { file: join(tmp, `${name}.db`) };
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      const db = `waitlist_bench_${name}_${Date.now()}`;
      await c.query(`CREATE DATABASE ${db}`);
      await c.end();
      const u = new URL(PG);
      u.pathname = `/${db}`;
      h.dropDb = db;
      return { url: u.toString() };
    },
    api,
  };
  h.setUp = async (base, slug) => {
    const s = await h.api(base, 'POST', '/api/auth/signup', OWNER);
    const cookie = s.cookie;
    const p = await h.api(base, 'POST', '/api/project', { name: slug, slug }, cookie);
    const k = await h.api(base, 'POST', `/api/project/${p.json.data.projectId}/apikey`, { name: 'bench' }, cookie);
    return { cookie, projectId: p.json.data.projectId, slug, key: k.json.data.key };
  };
  try {
    await benchSurface(h);
    for (const r of rows) console.log(`| ${r.figure} | ${r.measured} | ${r.target} | ${r.baseline} | ${r.ok} |`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
    if (h.dropDb) {
      const { default: pg } = await import('pg');
      const c = new pg.Client({ connectionString: PG });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${h.dropDb} WITH (FORCE)`).catch(() => {});
      await c.end();
    }
  }
}
