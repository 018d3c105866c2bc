// The hourly sign-up digest end to end below HTTP (the hour cannot be waited for): joins in one hour
// fan out into one digest row per recipient, due at the end of the hour; sending it counts that hour's
// sign-ups and mails them through a real SMTP server. Also: an email queued while the server has no
// SMTP is given up at once (nothing piles up).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Dispatcher } from '../../src/core/dispatcher.js';
import { joinWaitlist } from '../../src/core/entries.js';
import { fanOutPlan } from '../../src/core/fanout.js';
import { idFloor } from '../../src/core/ids.js';
import { Mailer } from '../../src/core/mailer.js';
import { newEmail } from '../../src/core/outbox.js';
import type { Store } from '../../src/db/index.js';
import { adapterFor } from '../store/adapters.js';
import { entry, key, project, user } from '../store/conformance.js';
import { startMailReceiver, type MailReceiver } from '../helpers/receivers.js';
import { DIALECT } from '../helpers/server.js';

let store: Store;
let dispose: () => Promise<void>;
let smtp: MailReceiver;
const projectId = 'prj_digest1';

beforeAll(async () => {
  smtp = await startMailReceiver();
  ({ store, dispose } = await adapterFor(DIALECT).open());
  const u = user({ id: 'usr_d1' });
  await store.insertUser(u);
  await store.insertProject(
    project(u.id, {
      id: projectId,
      name: 'Digest Co',
      slug: 'digest-co',
      settings: JSON.stringify({ notify: 'hourly', notifyEmails: ['boss@example.com', 'ops@example.com'] }),
    }),
  );
  await store.insertKey(key(projectId, { id: 'key_d1', lookup: 'lk_d1' }));
});
afterAll(async () => {
  await dispose?.();
  await smtp?.close();
});

it(`sends one hourly digest per recipient with the hour's sign-ups (${DIALECT})`, async () => {
  const ctx = { projectId, keyId: 'key_d1', ip: null, country: null, userAgent: null };
  for (const [email, name] of [
    ['a@example.com', 'Ada'],
    ['b@example.com', undefined],
    ['c@example.com', 'Cy'],
  ] as const) {
    await joinWaitlist(store, ctx, name ? { email, name } : { email });
  }
  expect(await store.events.fanOut(100, fanOutPlan(true))).toBe(3);
  const hourEnd = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
  expect(await store.events.claimDue(hourEnd - 1, 10, 60_000)).toEqual([]); // not before the hour ends
  const due = await store.events.claimDue(hourEnd + 1, 10, 60_000);
  expect(due.map((d) => [d.type, d.recipient]).sort()).toEqual([
    ['digest', 'boss@example.com'],
    ['digest', 'ops@example.com'],
  ]);

  const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'w@example.com' });
  const dispatcher = new Dispatcher(store, { mailer, allowPrivateWebhooks: false, publicUrl: 'https://wl.example.com' });
  try {
    for (const d of due) expect(await dispatcher.deliver(d)).toMatchObject({ status: 'delivered', attempts: 1 });
  } finally {
    mailer.close();
  }
  expect(smtp.mails).toHaveLength(2);
  const m = smtp.mails[0]!;
  expect(m.subject).toBe('3 new sign-ups on Digest Co');
  expect(m.text).toContain('3 people joined the Digest Co waitlist in the last hour');
  expect(m.text).toContain('a@example.com (Ada)\nb@example.com\nc@example.com (Cy)');
  expect(m.text).toContain('https://wl.example.com/');
  expect(m.html).toContain('a@example.com (Ada)');
});

it(`gives up an email at once when the server has no SMTP (${DIALECT})`, async () => {
  await store.events.append({ emails: [newEmail(projectId, 'welcome', 'nosmtp@example.com', { name: 'N' })] });
  const [d] = (await store.events.claimDue(Date.now() + 1, 10, 60_000)).filter((x) => x.recipient === 'nosmtp@example.com');
  const dispatcher = new Dispatcher(store, { mailer: null, allowPrivateWebhooks: false, publicUrl: '' });
  expect(await dispatcher.deliver(d!)).toMatchObject({
    status: 'failed',
    lastError: 'SMTP is not configured (--smtp-url)',
    clearData: true,
  });
  const log = await store.events.listEmails(projectId, { offset: 0, limit: 10 });
  expect(log.rows.find((r) => r.recipient === 'nosmtp@example.com')).toMatchObject({ status: 'failed', data: null });
});

it(`a digest counts joins and confirmations of its hour, never pending or imported entries (${DIALECT})`, async () => {
  const pid = 'prj_digest2';
  const row = project('usr_d1', {
    id: pid,
    name: 'Digest Two',
    slug: 'digest-two',
    settings: JSON.stringify({ notify: 'hourly', notifyEmails: ['boss@example.com'], doubleOptIn: true }),
  });
  await store.insertProject(row);
  await store.insertKey(key(pid, { id: 'key_d2', lookup: 'lk_d2' }));
  const ctx = { projectId: pid, keyId: 'key_d2', ip: null, country: null, userAgent: null, project: row };
  const now = Date.now();
  const confirmed = await joinWaitlist(store, ctx, { email: 'confirmed@example.com' });
  await joinWaitlist(store, ctx, { email: 'still-pending@example.com' });
  expect(await store.lifecycle.confirm(pid, confirmed.id, now, 0)).toBeTruthy();
  // Imported in this hour (no status token), and a pending entry that joined a day ago confirmed now.
  await store.importEntries([entry(pid, { email: 'imported@example.com', createdAt: now, updatedAt: now })]);
  const old = entry(pid, { email: 'old@example.com', createdAt: now - 86_400_000, updatedAt: now - 86_400_000, status: 'pending' });
  old.id = idFloor('ent', now - 86_400_000) + 'X'.repeat(16);
  old.statusTokenHash = 'h-old';
  await store.importEntries([old]);
  expect(await store.lifecycle.confirm(pid, old.id, now, 0)).toBeTruthy();
  const hour = Math.floor(now / 3_600_000) * 3_600_000;
  const ids = { from: idFloor('ent', hour - 8 * 86_400_000), to: idFloor('ent', hour + 3_600_000 + 1000) };
  const r = await store.events.signupsBetween(pid, hour, hour + 3_600_000, 100, ids);
  expect(r.rows.map((x) => x.email).sort()).toEqual(['confirmed@example.com', 'old@example.com']);
  expect(r.count).toBe(2);
  // The id range bounds the look-back: an entry that joined before it is not read.
  const narrow = { from: idFloor('ent', hour - 3_600_000), to: ids.to };
  expect((await store.events.signupsBetween(pid, hour, hour + 3_600_000, 100, narrow)).count).toBe(1);
});

/** A project of usr_d1 with hourly notices to `to`, and its key: the join context for it. */
async function hourlyProject(n: number, name: string, to: string[]) {
  const pid = `prj_digest${n}`;
  await store.insertProject(
    project('usr_d1', {
      id: pid,
      name,
      slug: `digest-${n}`,
      settings: JSON.stringify({ notify: 'hourly', notifyEmails: to }),
    }),
  );
  await store.insertKey(key(pid, { id: `key_d${n}`, lookup: `lk_d${n}` }));
  return { pid, ctx: { projectId: pid, keyId: `key_d${n}`, ip: null, country: null, userAgent: null } };
}

it(`a digest of one sign-up says "1 new sign-up" and "1 person" (${DIALECT})`, async () => {
  const { ctx } = await hourlyProject(3, 'Digest Three', ['one@example.com']);
  await joinWaitlist(store, ctx, { email: 'solo@example.com' });
  await store.events.fanOut(100, fanOutPlan(true));
  const hourEnd = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
  const [d] = (await store.events.claimDue(hourEnd + 1, 10, 60_000)).filter((x) => x.recipient === 'one@example.com');
  const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'w@example.com' });
  try {
    expect(await new Dispatcher(store, { mailer, allowPrivateWebhooks: false, publicUrl: '' }).deliver(d!)).toMatchObject({
      status: 'delivered',
    });
  } finally {
    mailer.close();
  }
  const m = smtp.mails.find((x) => x.subject?.includes('Digest Three'))!;
  expect(m.subject).toBe('1 new sign-up on Digest Three');
  expect(m.text).toContain('1 person joined the Digest Three waitlist in the last hour');
});

it(`a digest goes to the addresses notifyEmails holds when it is sent, and not at all once notify is off (${DIALECT})`, async () => {
  const { pid, ctx } = await hourlyProject(4, 'Digest Four', ['a4@example.com', 'b4@example.com']);
  await joinWaitlist(store, ctx, { email: 'p4@example.com' });
  await store.events.fanOut(100, fanOutPlan(true));
  // b4 is replaced by c4 during the hour: the next sign-up queues c4's digest.
  await store.updateProjectSettings(pid, { features: { notifyEmails: ['a4@example.com', 'c4@example.com'] } });
  await joinWaitlist(store, ctx, { email: 'q4@example.com' });
  await store.events.fanOut(100, fanOutPlan(true));
  const hourEnd = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
  const due = (await store.events.claimDue(hourEnd + 1, 50, 60_000)).filter((x) => x.projectId === pid);
  expect(due.map((d) => d.recipient).sort()).toEqual(['a4@example.com', 'b4@example.com', 'c4@example.com']);
  const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'w@example.com' });
  const dispatcher = new Dispatcher(store, { mailer, allowPrivateWebhooks: false, publicUrl: '' });
  try {
    const outcome = new Map<string, unknown>();
    for (const d of due) outcome.set(d.recipient!, await dispatcher.deliver(d));
    expect(outcome.get('a4@example.com')).toMatchObject({ status: 'delivered' });
    expect(outcome.get('c4@example.com')).toMatchObject({ status: 'delivered' });
    expect(outcome.get('b4@example.com')).toMatchObject({
      status: 'failed',
      lastError: 'not sent: the address is no longer in notifyEmails',
    });
    const sent = smtp.mails.filter((m) => m.subject?.includes('Digest Four'));
    expect(sent.map((m) => m.subject)).toEqual(['2 new sign-ups on Digest Four', '2 new sign-ups on Digest Four']);
  } finally {
    mailer.close();
  }
});

it(`a digest queued before notify was turned off is not sent (${DIALECT})`, async () => {
  const { pid, ctx } = await hourlyProject(5, 'Digest Five', ['a5@example.com']);
  await joinWaitlist(store, ctx, { email: 'p5@example.com' });
  await store.events.fanOut(100, fanOutPlan(true));
  await store.updateProjectSettings(pid, { features: { notify: 'off', notifyEmails: ['a5@example.com'] } });
  const hourEnd = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
  const [d] = (await store.events.claimDue(hourEnd + 1, 50, 60_000)).filter((x) => x.projectId === pid);
  const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, from: 'w@example.com' });
  try {
    const r = await new Dispatcher(store, { mailer, allowPrivateWebhooks: false, publicUrl: '' }).deliver(d!);
    expect(r).toMatchObject({ status: 'failed', lastError: 'not sent: notify is now "off"' });
  } finally {
    mailer.close();
  }
  expect(smtp.mails.some((m) => m.subject?.includes('Digest Five'))).toBe(false);
});
