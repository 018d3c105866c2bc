// Events layer benchmark, called from bench/run.mjs. Join throughput on three servers started side by
// side and loaded in turn (off, on, backlog; three rounds; medians), so machine noise hits each alike:
//   off     — no webhook;
//   on      — a webhook to a receiver that takes 10 s to answer every delivery;
//   backlog — the same webhook and 1,000,000 undelivered deliveries in the outbox (a receiver down for
//             hours; SQLite only: seeded straight into the file).
// Targets: on and backlog ≥ 90% of off (the dispatcher never slows the join path); memory flat.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const BIN = join(resolve(import.meta.dirname, '..'), 'bin/waitlist.js');
const BACKLOG = 1_000_000;
const ROUNDS = Number(process.env.WAITLIST_BENCH_EVENT_ROUNDS) || 3;

function slowReceiver(delayMs) {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      setTimeout(() => res.writeHead(200).end('ok'), delayMs);
    });
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({
        url: `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/hook`,
        count: () => received,
        close: () => (server.closeAllConnections(), server.close()),
      }),
    ),
  );
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Fills a stopped server's SQLite file with `n` undelivered deliveries of `webhookId`, due over the next 10 hours. */
async function seedBacklog(file, projectId, webhookId, n) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  const now = Date.now();
  const ev = db.prepare('INSERT INTO events (id, project_id, type, payload, created_at, fanned_out) VALUES (?, ?, ?, ?, ?, 1)');
  const dl =
    db.prepare(`INSERT INTO deliveries (id, project_id, kind, webhook_id, event_id, type, status, attempts, last_error, next_attempt_at, created_at, updated_at)
    VALUES (?, ?, 'webhook', ?, ?, 'entry.created', 'pending', 3, 'HTTP 503', ?, ?, ?)`);
  const payload = JSON.stringify({
    type: 'entry.created',
    timestamp: new Date(now).toISOString(),
    projectId,
    data: { entryId: 'ent_x', email: 'x@bench.example' },
  });
  db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const id = String(i).padStart(8, '0');
      ev.run(`evt_seed${id}`, projectId, 'entry.created', payload, now - n + i);
      dl.run(`dlv_seed${id}`, projectId, webhookId, `evt_seed${id}`, now + 60_000 + Math.floor((i / n) * 36_000_000), now - n + i, now);
    }
  })();
  db.close();
}

/** h: helpers of bench/run.mjs (startProcess, freshDb, setUp, load, row, fmt, stop, api, log, PG). */
export async function benchEvents(h) {
  h.log(`events: joins/s with no webhook, a webhook to a 10 s receiver${h.PG ? '' : `, and ${BACKLOG.toLocaleString('en')} undelivered`}`);
  const rx = await slowReceiver(10_000);
  const serve = (db) =>
    h.startProcess(
      'node',
      [
        BIN,
        'serve',
        '--port',
        '0',
        '--no-rate-limit',
        '--allow-private-webhooks',
        ...(db.url ? ['--database-url', db.url] : ['--db', db.file]),
      ],
      {
        WAITLIST_RATE_LIMIT: 'off',
        DATABASE_URL: '',
      },
    );
  /** @type {any[]} */
  const cases = [];
  try {
    for (const name of h.PG ? ['off', 'on'] : ['off', 'on', 'backlog']) {
      const db = await h.freshDb(`events_${name}`);
      let srv = await serve(db);
      const s = await h.setUp(srv.url, `bench-ev-${name}`);
      if (name !== 'off') {
        const hook = await h.api(srv.url, 'POST', `/api/project/${s.projectId}/webhooks`, { url: rx.url }, s.cookie);
        if (hook.status !== 201) throw new Error(`webhook create failed: ${hook.status} ${JSON.stringify(hook.json)}`);
        if (name === 'backlog') {
          await h.stop(srv.child);
          h.log(`events: seeding ${BACKLOG.toLocaleString('en')} undelivered deliveries`);
          await seedBacklog(db.file, s.projectId, hook.json.data.webhookId, BACKLOG);
          srv = await serve(db);
        }
      }
      cases.push({ name, srv, path: `/v1/waitlist/${s.slug}/join`, key: s.key, runs: [] });
    }
    for (const c of cases) await h.load(c.srv.url, c.path, c.key, { seconds: 2, run: `evw-${c.name}` });
    for (const c of cases) c.rssStart = rssMb(c.srv.child.pid);
    for (let i = 0; i < ROUNDS; i++) {
      for (const c of cases) c.runs.push(await h.load(c.srv.url, c.path, c.key, { run: `ev${i}-${c.name}` }));
      h.log(
        `events round ${i + 1}: ${cases.map((c) => `${c.name} ${h.fmt(c.runs[i].rps, 0)}/s RSS ${h.fmt(rssMb(c.srv.child.pid), 0)} MB`).join(', ')}`,
      );
    }
    for (const c of cases) {
      c.rps = median(c.runs.map((r) => r.rps));
      c.rssEnd = rssMb(c.srv.child.pid);
    }
    const off = cases[0];
    const rss = (c) => `RSS ${h.fmt(c.rssStart, 0)} → ${h.fmt(c.rssEnd, 0)} MB`;
    for (const c of cases.slice(1)) {
      const ratio = c.rps / off.rps;
      const errors = c.runs.reduce((n, r) => n + r.non2xx + r.socketErrors, 0);
      h.row(
        c.name === 'on' ? 'joins/s, webhook to a 10 s receiver' : `joins/s, ${BACKLOG.toLocaleString('en')} undelivered in the outbox`,
        `${h.fmt(c.rps, 0)} (${h.fmt(ratio * 100)}% of off; runs ${c.runs.map((r) => h.fmt(r.rps, 0)).join(', ')}; p99 ${h.fmt(Math.max(...c.runs.map((r) => r.p99)))} ms; errors ${errors}; ${rss(c)})`,
        '≥ 90% of off',
        `off ${h.fmt(off.rps, 0)} (runs ${off.runs.map((r) => h.fmt(r.rps, 0)).join(', ')}; ${rss(off)})`,
        ratio >= 0.9 && errors === 0,
      );
    }
    h.row('deliveries that reached the 10 s receiver', String(rx.count()), 'the rest queued, not dropped', '–', null);
  } finally {
    for (const c of cases) await h.stop(c.srv.child);
    rx.close();
  }
}
