// A server killed with SIGKILL between the commit of joins and the delivery of their events delivers
// every one of them after a restart on the same database (the outbox survives; leases of the dead
// process run out). Runs on SQLite and, in the pg project, on PostgreSQL.
import { afterAll, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { startHookReceiver, waitFor } from '../helpers/receivers.js';
import { cleanup, DIALECT, postJoin, projectWithKey, signedUp, startServer, uniqueEmail, type TestServer } from '../helpers/server.js';

let srv: TestServer | undefined;
afterAll(async () => {
  if (srv) {
    await srv.stop();
    cleanup(srv);
  }
});

it(`delivers every committed event after a SIGKILL and restart (${DIALECT})`, async () => {
  const rx = await startHookReceiver();
  const env = { WAITLIST_OUTBOX_LEASE_SEC: '15', WAITLIST_RETRY_SCHEDULE: '1,1,1,1,1,1,1,1,1,1' };
  try {
    srv = await startServer({ args: ['--allow-private-webhooks'], env });
    const c = await signedUp(srv.url);
    const p = await projectWithKey(c);
    const h = ok(await c.post(`/api/project/${p.projectId}/webhooks`, { url: rx.url, events: ['entry.created'] }), 201);
    rx.setSecret(h.secret);
    // Before the crash the receiver is slow and failing: nothing gets delivered, some sends are in flight.
    rx.delayMs = 2000;
    rx.answer = () => 503;
    const joins = await Promise.all(Array.from({ length: 30 }, () => postJoin(srv!.url, p.slug, p.key, { email: uniqueEmail('crash') })));
    const ids = joins.map((j) => ok(j, 201).entryId as string);
    await waitFor(() => rx.attempts.size > 0, 10_000, 'a first attempt in flight');
    srv.proc.kill('SIGKILL');
    await srv.proc;
    expect(rx.received).toHaveLength(0);

    rx.delayMs = 0;
    rx.answer = () => 200;
    srv = await startServer({ reuse: srv, args: ['--allow-private-webhooks'], env });
    await waitFor(
      () => ids.every((id) => rx.received.some((m) => m.body.data.entryId === id)),
      45_000,
      'every event delivered after restart',
    );
    expect(new Set(rx.received.map((m) => m.id)).size).toBe(30);
    expect(rx.badSignatures).toBe(0);
  } finally {
    await rx.close();
  }
}, 90_000);
