// Imports running at once are capped: 4 per account and 8 per client address (src/server/routes/import.ts).
// Each holds its connection for up to --import-timeout, so with --open-signup anyone could otherwise hold
// them by the hundred. Over HTTP on the suite's database, with uploads kept open by the test.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { cleanup, type Client, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startServer({ args: ['--open-signup'] });
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

interface Upload {
  /** Sends the rest of the file and resolves with the answer. */
  finish(): Promise<{ status: number; body: any }>;
  /** Closes the connection mid-file. */
  abort(): void;
  /** The answer, once there is one (at once for a refused upload). */
  answer: Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>;
}

/** Starts a CSV import and keeps its body open after the header line and one row. */
function openUpload(c: Client, projectId: string, tag: string): Upload {
  const req = request(new URL(`/api/project/${projectId}/import?format=csv`, srv.url), {
    method: 'POST',
    headers: { cookie: c.cookie, 'content-type': 'text/csv' },
  });
  const answer = new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
    });
    req.on('error', reject);
  });
  req.write(`email\n${tag}-0@example.com\n`);
  return {
    answer,
    abort: () => {
      answer.catch(() => undefined);
      req.destroy();
    },
    finish: async () => {
      req.end(`${tag}-1@example.com\n`);
      return answer;
    },
  };
}

/**
 * Opens `n` uploads at once. A refused upload answers at once and a running one only once its file ends,
 * so the first answer tells which was over the limit, whatever order the server took them in.
 */
async function race(opens: (() => Upload)[]) {
  const all = opens.map((o) => o());
  const first = await Promise.race(all.map((u, i) => u.answer.then((a) => ({ i, a }))));
  return { refused: first.a, open: all.filter((_, i) => i !== first.i) };
}

/** Tries an upload until it is let in (a slot given back when the server saw the client go). */
async function importsOnceFree(c: Client, projectId: string, tag: string) {
  for (let n = 0; ; n++) {
    const u = openUpload(c, projectId, `${tag}${n}`);
    const a = await Promise.race([u.answer, new Promise<null>((r) => setTimeout(() => r(null), 200))]);
    if (a === null) return u.finish();
    expect(a.status).toBe(429);
    if (n > 50) throw new Error('no import slot was given back');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('imports running at once', () => {
  it('an account runs at most 4; the 5th is refused with 429 at once, and a slot frees when one ends', async () => {
    const c = await signedUp(srv.url);
    const p = await projectWithKey(c, 'Four at a time');
    const { refused, open } = await race([0, 1, 2, 3, 4].map((i) => () => openUpload(c, p.projectId, `a${i}`)));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.body.message).toContain('4 imports of this account');
    expect(refused.headers['retry-after']).toBe('10');

    const first = await open[0]!.finish();
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ imported: 2, duplicates: 0 });
    // Three still open: a fourth is let in again.
    const again = openUpload(c, p.projectId, 'a5');
    for (const u of open.slice(1)) expect((await u.finish()).status).toBe(200);
    expect((await again.finish()).status).toBe(200);
    const list = ok(await c.get(`/api/project/${p.projectId}/waitlist?limit=100`));
    expect(list.total).toBe(10); // every upload that was let in, and nothing of the refused one
  });

  it('one address runs at most 8, whichever accounts they are for', async () => {
    const accounts = await Promise.all([0, 1, 2].map(() => signedUp(srv.url)));
    const projects = await Promise.all(accounts.map((c, i) => projectWithKey(c, `Address ${i}`)));
    const { refused, open } = await race([
      ...[0, 1].flatMap((a) => [0, 1, 2, 3].map((i) => () => openUpload(accounts[a]!, projects[a]!.projectId, `b${a}${i}`))),
      () => openUpload(accounts[2]!, projects[2]!.projectId, 'b20'),
    ]);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toContain('8 imports from this address');
    expect((await open[0]!.finish()).status).toBe(200);
    const again = openUpload(accounts[2]!, projects[2]!.projectId, 'b21');
    for (const u of open.slice(1)) expect((await u.finish()).status).toBe(200);
    expect((await again.finish()).status).toBe(200);
    // The refused upload's account got its own count back: each account runs 4 at once again.
    for (const [a, c] of accounts.entries()) {
      const four = [0, 1, 2, 3].map((i) => openUpload(c, projects[a]!.projectId, `b${a}x${i}`));
      for (const u of four) expect((await u.finish()).status).toBe(200);
    }
  });

  it('an import cut off by its client gives its slot back', async () => {
    const c = await signedUp(srv.url);
    const p = await projectWithKey(c, 'Cut off');
    const { refused, open } = await race([0, 1, 2, 3, 4].map((i) => () => openUpload(c, p.projectId, `c${i}`)));
    expect(refused.status).toBe(429);
    for (const u of open) u.abort();
    expect((await importsOnceFree(c, p.projectId, 'c5-')).status).toBe(200);
  });
});
