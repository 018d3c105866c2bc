// Events layer benchmark, called from bench/run.mjs: join throughput with a webhook on (a receiver
// that takes 10 s to answer every delivery) next to webhooks off, same run, same machine. Two fresh
// servers (one per case) are loaded alternately, off/on/off/on, and the medians compared. Target:
// "on" ≥ 90% of "off" — the dispatcher must never slow the join path. Also reports the outbox backlog
// left at the end (undelivered work the slow receiver could not keep up with) and the server's RSS.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const BIN = join(resolve(import.meta.dirname, '..'), 'bin/waitlist.js');

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
    server.listen(0, '127.0.0.1', () => ok({ url: `http://127.0.0.1:${server.address().port}/hook`, count: () => received, close: () => (server.closeAllConnections(), server.close()) })),
  );
}

const rssMb = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** h: helpers of bench/run.mjs (startProcess, freshDb, setUp, load, row, fmt, stop, api, log, LOAD_S). */
export async function benchEvents(h) {
  h.log('events: join throughput with a webhook to a 10 s receiver vs no webhook');
  const rx = await slowReceiver(10_000);
  const start = async (name) => {
    const db = await h.freshDb(name);
    const argv = [BIN, 'serve', '--port', '0', '--no-rate-limit', '--allow-private-webhooks'];
    if (db.url) argv.push('--database-url', db.url);
    else argv.push('--db', db.file);
    return h.startProcess('node', argv, { WAITLIST_RATE_LIMIT: 'off', DATABASE_URL: '' });
  };
  const off = await start('events_off');
  const on = await start('events_on');
  try {
    const sOff = await h.setUp(off.url, 'bench-ev-off');
    const sOn = await h.setUp(on.url, 'bench-ev-on');
    const hook = await h.api(on.url, 'POST', `/api/project/${sOn.projectId}/webhooks`, { url: rx.url }, sOn.cookie);
    if (hook.status !== 201) throw new Error(`webhook create failed: ${hook.status} ${JSON.stringify(hook.json)}`);
    const pOff = `/v1/waitlist/${sOff.slug}/join`;
    const pOn = `/v1/waitlist/${sOn.slug}/join`;
    await h.load(off.url, pOff, sOff.key, { seconds: 2, run: 'evw0' });
    await h.load(on.url, pOn, sOn.key, { seconds: 2, run: 'evw1' });
    const offRuns = [];
    const onRuns = [];
    for (let i = 0; i < 2; i++) {
      offRuns.push(await h.load(off.url, pOff, sOff.key, { run: `evo${i}` }));
      onRuns.push(await h.load(on.url, pOn, sOn.key, { run: `evn${i}` }));
    }
    const rOff = median(offRuns.map((r) => r.rps));
    const rOn = median(onRuns.map((r) => r.rps));
    const p99On = Math.max(...onRuns.map((r) => r.p99));
    const ratio = rOn / rOff;
    const errors = onRuns.reduce((n, r) => n + r.non2xx + r.socketErrors, 0);
    h.row(
      'join with webhook to a 10 s receiver (req/s)',
      `${h.fmt(rOn, 0)} (${h.fmt(ratio * 100)}% of off; p99 ${h.fmt(p99On)} ms; errors ${errors})`,
      '≥ 90% of off',
      `off ${h.fmt(rOff, 0)} (runs ${offRuns.map((r) => h.fmt(r.rps, 0)).join(', ')}; on runs ${onRuns.map((r) => h.fmt(r.rps, 0)).join(', ')})`,
      ratio >= 0.9 && errors === 0,
    );
    const backlog = onRuns.reduce((n, r) => n + r.ok, 0);
    h.row('outbox after the slow-receiver runs', `${rx.count()} attempts reached the receiver; ~${backlog} events queued; RSS ${h.fmt(rssMb(on.child.pid), 0)} MB (off ${h.fmt(rssMb(off.child.pid), 0)} MB)`, 'queued, not dropped; memory flat', '–', null);
  } finally {
    await h.stop(off.child);
    await h.stop(on.child);
    rx.close();
  }
}
