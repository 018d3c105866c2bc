// Join load for the benches: wrk (Debian's package) when installed, which loads the server harder than
// a client in this process can, and autocannon for the benches that build each body themselves or
// when wrk is missing. Also the server's CPU time, read from /proc (Linux).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { join } from 'node:path';

/** Whether wrk is installed. */
export const hasWrk = (() => {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    return /** @type {{ status?: number }} */ (e).status === 1; // wrk --version exits 1 after printing its version
  }
})();

/** Load processes still running (a bench's cleanup kills them). */
export const loaders = new Set();

/**
 * `wrk -t1` joins on `path` with bench/join.lua (a unique email per request; `env` passes the script's
 * options: WL_RANDOM_SECRET, WL_REFS, WL_REF_EVERY). With `close`, every request says `Connection:
 * close`: one new connection per join, as from many browsers. Answers joins/s, counts and latency
 * percentiles.
 */
export async function wrkJoins(url, path, key, { seconds, connections = 64, run, env = {}, close = false }) {
  const j = await jsonLine(
    'wrk',
    [
      '-t1',
      `-c${connections}`,
      `-d${seconds}s`,
      '--timeout',
      '10s',
      ...(close ? ['-H', 'Connection: close'] : []),
      '-s',
      join(import.meta.dirname, 'join.lua'),
      url,
    ],
    { ...process.env, WL_PATH: path, WL_KEY: key, WL_RUN: run, ...env },
    'WRKJSON',
  );
  return {
    rps: j.requests / (j.duration_us / 1e6),
    requests: j.requests,
    ok: j.requests - j.status_errors,
    non2xx: j.status_errors,
    socketErrors: j.socket_errors,
    p50: j.p50_us / 1000,
    p99: j.p99_us / 1000,
  };
}

/**
 * Runs a load process (kept in `loaders` while it runs) and answers the JSON object it prints after
 * `marker` (e.g. `WRKJSON {…}`); rejects with its output when there is none.
 */
export function jsonLine(cmd, argv, env, marker) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(cmd, argv, { env });
    loaders.add(child);
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('exit', () => {
      loaders.delete(child);
      const m = new RegExp(`${marker} (\\{.*\\})`).exec(out);
      if (!m) return reject(new Error(`${cmd} failed:\n${out}`));
      resolveRun(JSON.parse(m[1]));
    });
  });
}

/**
 * Joins from autocannon, in this process, 64 connections; `body(i)` gives the JSON body of the i-th
 * join (0, 1, …). Answers joins/s (autocannon's average), 2xx, non-2xx, socket errors and requests sent.
 */
export async function autocannonJoins(url, slug, key, seconds, body) {
  const { default: autocannon } = await import('autocannon');
  let n = 0;
  const r = await autocannon({
    url: `${url}/v1/waitlist/${slug}/join`,
    method: 'POST',
    connections: 64,
    duration: seconds,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    requests: [
      {
        setupRequest: (req) => {
          req.body = JSON.stringify(body(n++));
          return req;
        },
      },
    ],
  });
  return { rps: r.requests.average, ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, total: r.requests.total };
}

/** CPU time (user + system, all threads) a process has used, in ms. */
export function cpuMs(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms
}

/** The q-quantile of ascending `xs`. */
export const quantile = (xs, q) => xs[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? Number.NaN;

/**
 * `GET /healthz` on `url`, one at a time over one kept-alive connection with 2 ms between them, from
 * `delayMs` after now until `until` (ms, performance.now()); answers the latencies in ms, ascending.
 * Run beside a join load, it is what any other request waits for while the server works through join
 * batches.
 */
export async function probeHealth(url, until, delayMs = 1000) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const pause = (ms) => new Promise((r) => setTimeout(r, ms));
  const once = () =>
    new Promise((ok, fail) => {
      const t = performance.now();
      get(`${url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => ok(performance.now() - t));
      }).on('error', fail);
    });
  const lat = [];
  await pause(delayMs);
  while (performance.now() < until) {
    lat.push(await once());
    await pause(2);
  }
  agent.destroy();
  return lat.sort((a, b) => a - b);
}

/**
 * Resolves with `{ url, child }` once the spawned server `child` (stdout and stderr piped) prints
 * `listening on <url>`; rejects with its output when it exits first, or after `timeoutMs`.
 */
export function listening(child, what = 'the server', timeoutMs = 60_000) {
  let out = '';
  return new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${out}`)), timeoutMs);
    const onData = (c) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl({ url: m[1], child });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${out}`));
    });
  });
}
