// An import whose body is cut off — the request timeout answering 408 and closing the connection, or
// the client going away — ends that request only: the server keeps running (an unhandled stream error
// ended the process), logs one info line, and keeps the batches written before it.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { cleanup, type Client, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let owner: Client;
let nth = 1; // how many cut-off imports the log has shown

beforeAll(async () => {
  srv = await startServer({ args: ['--request-timeout', '1'] });
  owner = await signedUp(srv.url);
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

/** Sends `rows` lines of a file slowly (a chunk every 100 ms) until the server ends the request; answers its status, if any. */
function slowUpload(path: string, type: string, line: (i: number) => string, head: string): Promise<number | null> {
  return new Promise((resolve) => {
    const url = new URL(path, srv.url);
    const req = request(url, { method: 'POST', headers: { cookie: owner.cookie, 'content-type': type } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? null);
    });
    req.on('error', () => resolve(null));
    req.write(head);
    let i = 0;
    const timer = setInterval(() => {
      if (req.destroyed) return clearInterval(timer);
      let chunk = '';
      for (let n = 0; n < 2000; n++) chunk += line(i++);
      req.write(chunk);
      if (i > 200_000) {
        clearInterval(timer);
        req.end();
      }
    }, 100);
  });
}

describe('an import cut off by the request timeout', () => {
  it.each([
    ['csv', 'text/csv', (i: number) => `slow${i}@example.com,Slow ${i}\n`, 'email,name\n'],
    ['ndjson', 'application/x-ndjson', (i: number) => `${JSON.stringify({ email: `slownd${i}@example.com` })}\n`, ''],
  ])('%s: 408, the server keeps running, one info line, no internal error', async (format, type, line, head) => {
    const p = await projectWithKey(owner, `Slow ${format}`);
    const status = await slowUpload(`/api/project/${p.projectId}/import?format=${format}`, type, line, head);
    expect([408, null]).toContain(status);
    await new Promise((r) => setTimeout(r, 300));
    expect(srv.proc.exitCode).toBeNull();
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    ok(await owner.get(`/api/project/${p.projectId}/waitlist`));
    // Logged once the import notices (a batch being written finishes first).
    await expect.poll(() => srv.output().split(`/import: client closed the connection`).length - 1, { timeout: 15_000 }).toBe(nth++);
    expect(srv.output()).not.toContain('internal error');
  });
});
