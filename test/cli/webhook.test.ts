// `waitlist webhook list|create|delete|deliveries|retry|test --project P` against a real server and a
// real receiver (signatures verified with `standardwebhooks`).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHookReceiver, waitFor, type HookReceiver } from '../helpers/receivers.js';
import { cleanup, postJoin, startServer, type TestServer } from '../helpers/server.js';
import { cli, cliJson, cliSignup, freshHome } from './cli.js';

let srv: TestServer;
let rx: HookReceiver;
let home: string;
const as = () => ({ home });

beforeAll(async () => {
  rx = await startHookReceiver();
  srv = await startServer({ args: ['--allow-private-webhooks'] });
  home = freshHome();
  await cliSignup(srv.url, home);
});
afterAll(async () => {
  await srv.stop();
  await rx.close();
  cleanup(srv);
});

it('creates, lists, tests, shows deliveries, retries and deletes webhooks', async () => {
  await cliJson(['project', 'create', '--name', 'Hooked', '--slug', 'hooked'], as());
  const key = await cliJson(['key', 'create', '--project', 'hooked', '--name', 'k'], as());
  const w = await cliJson(['webhook', 'create', '--project', 'hooked', '--url', rx.url, '--events', 'entry.created'], as());
  expect(w).toMatchObject({ url: rx.url, events: ['entry.created'], enabled: true, secret: expect.stringMatching(/^whsec_/) });
  rx.setSecret(w.secret);

  const list = await cliJson(['webhook', 'list', '--project', 'hooked'], as());
  expect(list).toHaveLength(1);
  expect(list[0].secret).toBeUndefined();

  const ping = await cliJson(['webhook', 'test', w.webhookId, '--project', 'hooked'], as());
  expect(ping).toMatchObject({ type: 'ping', status: 'delivered', lastStatusCode: 200 });

  expect((await postJoin(srv.url, 'hooked', key.key, { email: 'cli-hook@example.com' })).status).toBe(201);
  await waitFor(() => rx.received.some((m) => m.type === 'entry.created'), 10_000, 'entry.created');
  const deliveries = await waitFor(
    async () => {
      const d = await cliJson(['webhook', 'deliveries', w.webhookId, '--project', 'hooked'], as());
      return d.some((x: any) => x.type === 'entry.created' && x.status === 'delivered') && d;
    },
    10_000,
    'delivered',
  );
  expect(deliveries.map((d: any) => d.type).sort()).toEqual(['entry.created', 'ping']);

  const retried = await cliJson(['webhook', 'retry', w.webhookId, ping.deliveryId, '--project', 'hooked'], as());
  expect(retried).toMatchObject({ deliveryId: ping.deliveryId, status: 'delivered', attempts: 2 });

  const bad = await cli(['webhook', 'create', '--project', 'hooked', '--url', 'ftp://x'], as());
  expect(bad.exitCode).not.toBe(0);
  expect(bad.stdout).toBe('');
  expect(bad.stderr).toMatch(/url/);

  const refused = await cli(['webhook', 'delete', w.webhookId, '--project', 'hooked'], as());
  expect(refused.exitCode).not.toBe(0);
  const del = await cliJson(['webhook', 'delete', w.webhookId, '--project', 'hooked', '--yes'], as());
  expect(del).toMatchObject({ webhookId: w.webhookId, deletedAt: expect.any(String) });
  expect(await cliJson(['webhook', 'list', '--project', 'hooked'], as())).toEqual([]);
  expect(rx.badSignatures).toBe(0);
});

it('serve refuses a malformed --smtp-url or --public-url before starting', async () => {
  for (const [flag, value] of [
    ['--smtp-url', 'http://mail.example.com'],
    ['--public-url', 'waitlist.example.com'],
  ] as const) {
    const r = await cli(['serve', '--port', '0', '--db', ':memory:', flag, value], as());
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain(flag);
    expect(r.stdout).toBe('');
  }
});

it('project settings takes the email flags; without SMTP a setting that sends email exits 1 with smtp_not_configured', async () => {
  await cliJson(['project', 'create', '--name', 'Mailless', '--slug', 'mailless'], as());
  const set = await cliJson(
    ['project', 'settings', 'mailless', '--notify-emails', 'a@example.com, b@example.com', '--notify', 'off'],
    as(),
  );
  expect(set).toMatchObject({ notifyEmails: ['a@example.com', 'b@example.com'], notify: 'off', welcomeEmail: false });
  const refused = await cli(['project', 'settings', 'mailless', '--welcome-email'], as());
  expect(refused.exitCode).toBe(1);
  expect(refused.stderr).toMatch(/smtp_not_configured/);
  const bad = await cli(['project', 'settings', 'mailless', '--notify', 'daily'], as());
  expect(bad.exitCode).toBe(2);
  expect(bad.stderr).toMatch(/--notify/);
  expect(await cliJson(['project', 'settings', 'mailless', '--notify-emails', ''], as())).toMatchObject({ notifyEmails: [] });
});
