// WAITLIST_SECRET: the operator's secret mixed into the server keys, so that a copy of the database
// alone cannot derive a subscriber's status, leave or confirmation link (the keys it holds are only
// half of the derivation). Without it, the database's key derives them: the control case shows the
// test's derivation is the server's.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacSha256 } from '../../src/core/crypto.js';
import { timePrefix } from '../../src/core/lifecycle.js';
import { ok } from '../helpers/api.js';
import { dbQuery } from '../helpers/lifecycle.js';
import { type MailReceiver, startMailReceiver, waitFor } from '../helpers/receivers.js';
import {
  BIN,
  Client,
  cleanup,
  DIALECT,
  postJoin,
  projectWithKey,
  signedUp,
  startServer,
  type TestServer,
  uniqueEmail,
} from '../helpers/server.js';

const SECRET = 'test-operator-secret-0123456789abcdef';
let smtp: MailReceiver;
const servers: TestServer[] = [];

beforeAll(async () => {
  smtp = await startMailReceiver();
});
afterAll(async () => {
  for (const s of servers) {
    await s.stop();
    cleanup(s);
  }
  await smtp?.close();
});

async function serve(env: Record<string, string>, reuse?: TestServer) {
  const s = await startServer({
    env,
    args: ['--smtp-url', `smtp://127.0.0.1:${smtp.port}`, '--public-url', 'https://wl.example.com/'],
    ...(reuse ? { reuse: { dbFile: reuse.dbFile, dbEnv: reuse.dbEnv } } : {}),
  });
  servers.push(s);
  return s;
}

/** What a copy of the database derives for an entry: the stored key's HMAC of its id. */
async function fromDatabase(server: TestServer, keyName: string, entryId: string, createdAt: string) {
  const [row] = await dbQuery<{ value: string }>(server, 'SELECT value FROM server_secrets WHERE name = ?', [keyName]);
  return timePrefix(Date.parse(createdAt)) + hmacSha256(row!.value)(entryId);
}

const mailsTo = (addr: string) => smtp.mails.filter((m) => (m.to as { text?: string } | undefined)?.text?.includes(addr));

describe(`WAITLIST_SECRET on ${DIALECT}`, () => {
  it('without it, the database derives the links (the control); with it, it does not, and the links hold across a restart', async () => {
    const plain = await serve({});
    const c0 = await signedUp(plain.url);
    const p0 = await projectWithKey(c0);
    const j0 = ok(await postJoin(plain.url, p0.slug, p0.key, { email: uniqueEmail('plain') }), 201);
    expect(await fromDatabase(plain, 'status-token-hmac-v1', j0.entryId, j0.createdAt)).toBe(j0.statusToken);

    let s = await serve({ WAITLIST_SECRET: SECRET });
    const c = await signedUp(s.url);
    const p = await projectWithKey(c);
    ok(await c.put(`/api/project/${p.projectId}/settings`, { doubleOptIn: true, welcomeEmail: true }));
    const email = uniqueEmail('peppered');
    const j = ok(await postJoin(s.url, p.slug, p.key, { email }), 201);
    expect(await fromDatabase(s, 'status-token-hmac-v1', j.entryId, j.createdAt)).not.toBe(j.statusToken);
    const [confirmation] = await waitFor(() => mailsTo(email).length && mailsTo(email), 15_000, 'confirmation');
    const token = decodeURIComponent(/confirm\?token=([\w%-]+)/.exec(confirmation!.text ?? '')![1]!);
    expect(await fromDatabase(s, 'confirm-token-hmac-v1', j.entryId, j.createdAt)).not.toBe(token);

    // The same secret after a restart derives the same keys: the email's link confirms, and the welcome
    // carries the join's status link.
    await s.stop();
    s = await serve({ WAITLIST_SECRET: SECRET }, s);
    ok(await new Client(s.url).post(`/v1/waitlist/${p.slug}/confirm`, { token }));
    const welcome = (await waitFor(() => mailsTo(email).length >= 2 && mailsTo(email), 15_000, 'welcome'))[1]!;
    expect(welcome.text).toContain(`https://wl.example.com/w/${p.slug}/status?token=${encodeURIComponent(j.statusToken)}`);
    const status = await fetch(`${s.url}/v1/waitlist/${p.slug}/status?token=${encodeURIComponent(j.statusToken)}`);
    expect(status.status).toBe(200);
  });

  it('a secret under 32 characters is a usage error (exit 2) naming the rule', async () => {
    const r = await execa('node', [BIN, 'serve', '--port', '0', '--db', '/nonexistent/never-opened.db'], {
      env: { WAITLIST_SECRET: 'short', DATABASE_URL: '' },
      reject: false,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('WAITLIST_SECRET must be at least 32 characters');
    expect(r.stdout).toBe('');
  });
});
