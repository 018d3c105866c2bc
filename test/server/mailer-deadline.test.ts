// A slow SMTP server is never sent the same email twice by the outbox: one send is aborted (its
// connection closed) at the mailer's deadline, under the claim's lease, instead of staying open for
// nodemailer's own limits (2 min to connect, 10 min of silence) while the lease ran out and a second
// claim sent the email again. Real SMTP servers started here (smtp-server).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterEach, expect, it } from 'vitest';
import { Mailer } from '../../src/core/mailer.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** An SMTP server that reads the message and never answers the end of DATA; counts the messages it got. */
async function silentAfterData() {
  const got = { messages: 0, closed: 0 };
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream) {
      stream.resume();
      stream.on('end', () => got.messages++);
    },
    onClose() {
      got.closed++;
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closers.push(() => new Promise((r) => server.close(() => r())));
  return { port: (server.server.address() as AddressInfo).port, got };
}

it('a send the SMTP server never answers is aborted at the deadline, its connection closed', async () => {
  const smtp = await silentAfterData();
  const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'w@example.com', deadlineMs: 1500 });
  const started = Date.now();
  const r = await mailer.send('someone@example.com', { subject: 'Hi', text: 'Hello', html: '<p>Hello</p>' });
  const took = Date.now() - started;
  mailer.close();
  expect(r).toMatchObject({ ok: false, code: null });
  expect(r.error).toMatch(/^EABORT: /);
  expect(took).toBeGreaterThanOrEqual(1400);
  expect(smtp.got.messages).toBe(1); // the message was sent once, then the silence
  await expect.poll(() => smtp.got.closed).toBe(1); // and the connection is closed, not left open
});

it('the connection, greeting and silence limits are transport options (not message defaults)', () => {
  const mailer = new Mailer({ smtpUrl: 'smtp://127.0.0.1:9', from: 'w@example.com' });
  const options = (mailer as unknown as { transport: { options: Record<string, unknown> } }).transport.options;
  expect(options).toMatchObject({ connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000, host: '127.0.0.1', port: 9 });
  mailer.close();
});
