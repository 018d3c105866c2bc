// Durability under load: 16 clients join as fast as they can while the server is killed (SIGKILL) or
// asked to stop (SIGTERM). After a restart on the same database every email that got a 201 is there;
// on SIGTERM the process also exits 0. Figures are printed for the README / report.
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, request } from 'node:http';
import { cleanup, Client, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

const CLIENTS = 16;
const toClean: TestServer[] = [];
afterAll(() => toClean.forEach(cleanup));

/** 16 loops joining unique emails until the server goes away; returns the acknowledged emails. */
async function hammer(url: string, slug: string, key: string, tag: string, onStarted: () => void) {
  const acked: string[] = [];
  let errors = 0;
  let other = 0;
  let n = 0;
  let stop = false;
  // One connection per client, like 16 browsers; keep-alive as real clients do.
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const post = (email: string) =>
    new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ email });
      const req = request(
        `${url}/v1/waitlist/${slug}/join`,
        {
          method: 'POST',
          agent,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const loop = async (c: number) => {
    while (!stop) {
      const email = `${tag}-${c}-${n++}@example.com`;
      try {
        const status = await post(email);
        if (status === 201) acked.push(email);
        else other++;
        if (acked.length === 200) onStarted();
      } catch {
        errors++; // the server went away: this client stops
        return;
      }
    }
  };
  const stopAfter = setTimeout(() => (stop = true), 30_000);
  await Promise.all(Array.from({ length: CLIENTS }, (_, c) => loop(c)));
  clearTimeout(stopAfter);
  agent.destroy();
  return { acked, errors, other };
}

/** Every email of the project, read through the export after a restart. */
async function storedEmails(url: string, cookie: string, projectId: string): Promise<Set<string>> {
  const c = new Client(url);
  c.cookie = cookie;
  const r = await c.get(`/api/project/${projectId}/waitlist/export?format=ndjson`);
  expect(r.status).toBe(200);
  return new Set(
    r.text
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { email: string }).email),
  );
}

describe.each([
  ['SIGKILL', 'SIGKILL' as const],
  ['SIGTERM', 'SIGTERM' as const],
])('%s while 16 clients join', (_name, signal) => {
  it('every 201 is present after a restart on the same database', async () => {
    const srv = await startServer();
    toClean.push(srv);
    const owner = await signedUp(srv.url);
    const { projectId, slug, key } = await projectWithKey(owner);
    let killedAt = 0;
    const load = hammer(srv.url, slug, key, signal.toLowerCase(), () => {
      if (killedAt) return;
      // Let the load run a little longer, then signal mid-stream.
      setTimeout(() => {
        killedAt = Date.now();
        srv.proc.kill(signal);
      }, 1000);
      killedAt = -1;
    });
    const { acked, errors, other } = await load;
    const exit = await srv.proc;
    if (signal === 'SIGTERM') {
      expect(exit.exitCode).toBe(0);
    } else {
      expect(exit.signal).toBe('SIGKILL');
    }
    expect(other).toBe(0);

    const again = await startServer({ reuse: { dbFile: srv.dbFile, dbEnv: srv.dbEnv } });
    const present = await storedEmails(again.url, owner.cookie, projectId);
    await again.stop();
    const missing = acked.filter((e) => !present.has(e));
    console.log(
      `[crash-test] ${signal}: ${acked.length} joins acknowledged (201), ${present.size} entries present after restart, ` +
        `${missing.length} acknowledged but missing, ${present.size - (acked.length - missing.length)} stored but unacknowledged, ` +
        `${errors} clients cut off`,
    );
    expect(acked.length).toBeGreaterThan(200);
    expect(missing).toEqual([]);
    if (signal === 'SIGTERM') expect(present.size).toBe(acked.length); // nothing in flight was dropped after commit
  });
});
