// A webhook delivery in flight when the server is killed (SIGKILL mid-send: its claim's lease still
// running) is sent again as soon as the server is back, on SQLite (one server per file: every claim at
// start is a dead process's), instead of when the 60 s lease runs out. On PostgreSQL another instance
// may hold a claim, so it waits for the lease there (docs/events.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { type HookReceiver, startHookReceiver, waitFor } from '../helpers/receivers.js';
import { cleanup, DIALECT, postJoin, projectWithKey, signedUp, startServer, type TestServer, uniqueEmail } from '../helpers/server.js';

let rx: HookReceiver;
beforeAll(async () => {
  rx = await startHookReceiver();
});
afterAll(() => rx.close());

describe.runIf(DIALECT === 'sqlite')('restart after a kill mid-send (SQLite)', () => {
  it('the delivery that was in flight goes at once after the restart, with the same webhook-id', async () => {
    let srv: TestServer = await startServer({ args: ['--allow-private-webhooks'] });
    try {
      const c = await signedUp(srv.url);
      const p = await projectWithKey(c);
      const h = ok(await c.post(`/api/project/${p.projectId}/webhooks`, { url: rx.url }), 201);
      rx.setSecret(h.secret);
      rx.delayMs = 30_000; // the receiver holds its answer: the send is in flight when the kill comes
      const j = ok(await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail('inflight') }), 201);
      await waitFor(() => rx.attempts.size > 0, 15_000, 'the first attempt to arrive');
      const [eventId] = [...rx.attempts.keys()];
      srv.proc.kill('SIGKILL');
      await srv.proc.catch(() => undefined);
      rx.delayMs = 0;
      srv = await startServer({ args: ['--allow-private-webhooks'], reuse: { dbFile: srv.dbFile, dbEnv: srv.dbEnv } });
      // Well before the 60 s lease would have run out.
      const got = await waitFor(() => rx.received.find((m) => m.id === eventId), 20_000, 'the delivery after the restart');
      expect(got.body.data.entryId).toBe(j.entryId);
    } finally {
      await srv.stop();
      cleanup(srv);
    }
  });
});
