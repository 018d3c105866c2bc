// Two builds side by side: this checkout's server and another checkout's (`--base DIR`, e.g. a git
// worktree of the commit before a change, built with `npm run build`), each on a fresh SQLite file,
// loaded with wrk in alternation (the order flips every round) and compared by the median of their
// runs. On a machine whose speed moves by a third within minutes (docs/performance.md, round
// fourteen), a few per cent between two builds shows here and not in two separate `npm run bench` runs.
// Besides joins/s it gives each build's join p99 and the latency of a `GET /healthz` sent one at a time
// while the joins run (what any other request waits for while the server works through join batches).
//
//   git worktree add ../base HEAD~1 && (cd ../base && npm ci && npm run build)
//   node bench/ab.mjs --base ../base                 # plain joins
//   node bench/ab.mjs --base ../base --webhook       # each server with a webhook to a 10 s receiver
//   node bench/ab.mjs --base ../base --rounds 8 --seconds 6
//   node bench/ab.mjs --base ../base --flood 200     # with 200 wrong secrets/s for a never-verified key
//   node bench/ab.mjs --base ../base --database-url postgres://postgres@127.0.0.1:5432/postgres
//                                                    # PostgreSQL: each build on a fresh database of that server
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { api, OWNER } from './http.mjs';
import { hasWrk, jsonLine, listening, loaders, probeHealth, quantile, wrkJoins } from './load.mjs';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    webhook: { type: 'boolean', default: false },
    flood: { type: 'string' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '6' },
    'database-url': { type: 'string' },
  },
});
const PG = args['database-url'];
const ROUNDS = Number(args.rounds);
const SECONDS = Number(args.seconds);
const FLOOD = args.flood === undefined ? 0 : Number(args.flood);
const roots = [resolve(args.base ?? ''), resolve(import.meta.dirname, '..')];
if (
  !args.base ||
  !Number.isInteger(ROUNDS) ||
  ROUNDS < 1 ||
  !Number.isInteger(SECONDS) ||
  SECONDS < 1 ||
  !Number.isInteger(FLOOD) ||
  FLOOD < 0
) {
  console.error('usage: node bench/ab.mjs --base DIR [--webhook] [--flood RATE] [--rounds N] [--seconds S] [--database-url URL]');
  process.exit(2);
}
for (const root of roots) {
  if (!existsSync(join(root, 'dist/cli/main.js'))) {
    console.error(`${root} has no dist/: run \`npm run build\` there first`);
    process.exit(1);
  }
}
if (!hasWrk) {
  console.error('bench/ab.mjs needs wrk (sudo apt-get install -y wrk)');
  process.exit(1);
}

const SLUG = 'bench-ab';
const dirs = [];
const children = new Set();
const databases = [];

/** PostgreSQL (--database-url): a fresh database on that server for one build; dropped at the end. */
async function freshPg(i) {
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: PG });
  await admin.connect();
  const name = `waitlist_ab_${process.pid}_${i}`;
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  databases.push(name);
  const u = new URL(/** @type {string} */ (PG));
  u.pathname = `/${name}`;
  return u.toString();
}

async function dropPg() {
  if (!databases.length) return;
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: PG });
  await admin.connect();
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}

/** A receiver that answers every delivery after 10 s (a slow endpoint: deliveries pile up). */
function slowReceiver() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => setTimeout(() => res.writeHead(200).end('ok'), 10_000).unref());
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({ server, url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/hook` }),
    ),
  );
}

/** The server of checkout `root` on a fresh SQLite file (or PostgreSQL database); resolves with its URL once it listens. */
async function serve(root, i) {
  const dir = mkdtempSync(join(tmpdir(), 'waitlist-ab-'));
  dirs.push(dir);
  const argv = [
    join(root, 'bin/waitlist.js'),
    'serve',
    '--port',
    '0',
    '--no-rate-limit',
    '--allow-private-webhooks',
    ...(PG ? ['--database-url', await freshPg(i)] : ['--db', join(dir, 'ab.db')]),
  ];
  const child = spawn('node', argv, {
    env: { ...process.env, WAITLIST_RATE_LIMIT: 'off', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  return listening(child, `${root}: the server`);
}

/**
 * A user, a project with a key, and (with --webhook) a webhook to `hookUrl`; answers the key, and a
 * second key of the project that no join uses (the one `--flood` sends wrong secrets for).
 */
async function setUp(url, hookUrl) {
  const { cookie } = await api(url, 'POST', '/api/auth/signup', OWNER);
  const p = await api(url, 'POST', '/api/project', { name: SLUG, slug: SLUG }, cookie);
  if (p.status !== 201) throw new Error(`project create failed: ${p.status} ${JSON.stringify(p.json)}`);
  const projectId = p.json.data.projectId;
  const key = (await api(url, 'POST', `/api/project/${projectId}/apikey`, { name: 'ab' }, cookie)).json.data.key;
  const unused = (await api(url, 'POST', `/api/project/${projectId}/apikey`, { name: 'flooded' }, cookie)).json.data.key;
  if (hookUrl) {
    const h = await api(url, 'POST', `/api/project/${projectId}/webhooks`, { url: hookUrl }, cookie);
    if (h.status !== 201) throw new Error(`webhook create failed: ${h.status} ${JSON.stringify(h.json)}`);
  }
  return { key, unused };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const fmt = (n) => Math.round(n).toLocaleString('en');

let receiver;
try {
  receiver = args.webhook ? await slowReceiver() : undefined;
  const cases = [];
  for (const [i, root] of roots.entries()) {
    const srv = await serve(root, i);
    const { key, unused } = await setUp(srv.url, receiver?.url);
    cases.push({
      name: i === 0 ? 'base' : 'this',
      root,
      url: srv.url,
      key,
      unused,
      runs: /** @type {number[]} */ ([]),
      p99s: /** @type {number[]} */ ([]),
      health: /** @type {{ p50: number, p99: number }[]} */ ([]),
    });
  }
  const path = `/v1/waitlist/${SLUG}/join`;
  for (const c of cases) await wrkJoins(c.url, path, c.key, { seconds: 3, run: `abw-${c.name}` });
  for (let i = 0; i < ROUNDS; i++) {
    for (const c of i % 2 ? [...cases].reverse() : cases) {
      const until = performance.now() + (SECONDS - 1) * 1000;
      const [r, lat] = await Promise.all([
        wrkJoins(c.url, path, c.key, { seconds: SECONDS, run: `ab${i}-${c.name}` }),
        probeHealth(c.url, until),
        // Wrong secrets from another process (bench/flood.mjs), as in `npm run bench`'s flood rows.
        FLOOD &&
          jsonLine(
            'node',
            [join(import.meta.dirname, 'flood.mjs'), c.url, path, c.unused, String(FLOOD), String(SECONDS)],
            process.env,
            'FLOODJSON',
          ),
      ]);
      c.runs.push(r.rps);
      c.p99s.push(r.p99);
      c.health.push({ p50: quantile(lat, 0.5), p99: quantile(lat, 0.99) });
    }
    process.stderr.write(`· round ${i + 1}: base ${fmt(cases[0].runs[i])}/s, this ${fmt(cases[1].runs[i])}/s\n`);
  }
  const [base, mine] = cases.map((c) => median(c.runs));
  console.log(
    `joins/s${PG ? ' on PostgreSQL' : ''}${args.webhook ? ' with a webhook to a 10 s receiver' : ''}${FLOOD ? `, ${FLOOD} wrong secrets/s` : ''}, median of ${ROUNDS} runs of ${SECONDS} s (wrk -t1 -c64), alternating:`,
  );
  for (const c of cases)
    console.log(`  ${c.name.padEnd(4)} ${fmt(median(c.runs)).padStart(7)}  (${c.runs.map(fmt).join(', ')})  ${c.root}`);
  console.log(`  this / base: ${((mine / base) * 100).toFixed(1)} %`);
  const ms = (xs) => xs.map((x) => x.toFixed(1)).join(', ');
  console.log('join p99, and GET /healthz p50 / p99 while the joins run (ms, median of the runs; each run in brackets):');
  for (const c of cases) {
    const h50 = c.health.map((h) => h.p50);
    const h99 = c.health.map((h) => h.p99);
    console.log(
      `  ${c.name.padEnd(4)} join p99 ${median(c.p99s).toFixed(1)} (${ms(c.p99s)}); healthz p50 ${median(h50).toFixed(1)} (${ms(h50)}), p99 ${median(h99).toFixed(1)} (${ms(h99)})`,
    );
  }
} finally {
  for (const l of loaders) l.kill('SIGKILL');
  for (const c of children) c.kill('SIGTERM');
  receiver?.server.closeAllConnections();
  receiver?.server.close();
  await Promise.all(
    [...children].map((c) => (c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once('exit', r)) : null)),
  );
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await dropPg();
}
