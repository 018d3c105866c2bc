// A recipient the SMTP server refuses does not cost the project's email its send slots. A failed
// attempt leaves a destination one slot until an attempt succeeds (src/core/fair-share.ts); a refused
// `RCPT TO` is the server answering about one mailbox, so the project's next emails still go out
// several at a time. Over HTTP on the suite's database (SQLite, and PostgreSQL in the pg project), with
// a real SMTP server that refuses `bounce-…` mailboxes with 550 and holds every other message's DATA
// until the test lets it go.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { waitFor } from '../helpers/receivers.js';
import { DIALECT, postJoin, projectWithKey, serversForFile, signedUp, uniqueEmail, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let smtp: SMTPServer;
const held: (() => void)[] = [];
let peak = 0;
let accepted = 0;
const serve = serversForFile();

beforeAll(async () => {
  smtp = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, cb) {
      if (address.address.startsWith('bounce-')) cb(Object.assign(new Error('5.1.1 No such mailbox'), { responseCode: 550 }));
      else cb();
    },
    onData(stream, _session, cb) {
      stream.resume();
      stream.on('end', () => {
        held.push(() => {
          accepted++;
          cb();
        });
        peak = Math.max(peak, held.length);
      });
    },
  });
  await new Promise<void>((res) => smtp.listen(0, '127.0.0.1', () => res()));
  const port = (smtp.server.address() as AddressInfo).port;
  // A failed attempt is retried after 10 minutes: the refused one stays out of the way.
  srv = await serve({ args: ['--smtp-url', `smtp://127.0.0.1:${port}`], env: { WAITLIST_RETRY_SCHEDULE: '600' } });
});
afterAll(async () => {
  for (const release of held) release();
  await new Promise<void>((res) => smtp?.close(() => res()));
});

describe(`a refused recipient on ${DIALECT}`, () => {
  it("leaves the project's email its slots: the next emails go out several at a time", async () => {
    const c = await signedUp(srv.url);
    const p = await projectWithKey(c, 'Bounces');
    ok(await c.put(`/api/project/${p.projectId}/settings`, { welcomeEmail: true }));
    ok(await postJoin(srv.url, p.slug, p.key, { email: `bounce-${uniqueEmail()}` }), 201);
    const refused = await waitFor(
      async () => {
        const log = ok(await c.get(`/api/project/${p.projectId}/emails`));
        return log.items.find((e: { attempts: number }) => e.attempts === 1);
      },
      15_000,
      'the refused attempt in the email log',
    );
    expect(refused).toMatchObject({ status: 'pending', lastStatusCode: 550 });
    expect(refused.lastError).toContain('No such mailbox');

    for (let i = 0; i < 8; i++) ok(await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail() }), 201);
    // A failing destination would get one slot: one message held at a time. The project's email gets
    // its share of 4 first, then up to 12 when nothing else waits.
    await waitFor(() => held.length === 8, 15_000, 'all 8 welcome emails held at once');
    expect(peak).toBe(8);
    for (const release of held.splice(0)) release();
    await waitFor(() => accepted === 8, 10_000, 'the 8 emails accepted');
  });
});
