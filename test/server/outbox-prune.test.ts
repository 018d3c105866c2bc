// The outbox's 30-day prune (the dispatcher runs it hourly), on the suite's database: it drops
// delivered and failed deliveries last touched before the cut-off, and events older than it (found by
// their id, a ULID whose first characters are its time) that no pending delivery still needs. The
// index on events.created_at that it used to read is gone (SQLite 0015, PostgreSQL 0012).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { ulid } from 'ulidx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Dispatcher } from '../../src/core/dispatcher.js';
import type { Store } from '../../src/db/index.js';
import { DIALECT } from '../helpers/server.js';
import { DELIVERED, project, user, webhook } from '../store/conformance.js';

const DAY = 86_400_000;
let store: Store;
let query: (text: string) => Promise<string[]>;
let dispose: () => Promise<void>;

beforeAll(async () => {
  if (DIALECT === 'pg') {
    const { createPgDatabase } = await import('../helpers/pg.js');
    const { openPgStore } = await import('../../src/db/pg/store.js');
    const url = await createPgDatabase(process.env.TEST_DATABASE_URL!);
    store = await openPgStore(url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    query = async (text) => (await client.query({ text, rowMode: 'array' })).rows.map((r) => String(r[0]));
    dispose = async () => {
      await client.end();
      await store.close();
    };
  } else {
    const { openSqliteStore } = await import('../../src/db/sqlite/store.js');
    const dir = mkdtempSync(join(tmpdir(), 'waitlist-prune-'));
    const file = join(dir, 'store.db');
    store = openSqliteStore(file);
    const peek = new Database(file, { readonly: true });
    query = async (text) => (peek.prepare(text).raw().all() as unknown[][]).map((r) => String(r[0]));
    dispose = async () => {
      peek.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  const u = user({ id: 'usr_prune' });
  await store.insertUser(u);
  await store.insertProject(project(u.id, { id: 'prj_prune', slug: 'prune' }));
  await store.events.insertWebhook(webhook('prj_prune', 'wh_prune', ['entry.created']));
});
afterAll(async () => dispose?.());

/** An event made `at` (its id carries that time) with one delivery to wh_prune, delivered at `at` unless `pending`. */
async function eventAt(at: number, pending = false) {
  const id = `evt_${ulid(at)}`;
  const dlv = `dlv_${ulid(at)}`;
  const payload = JSON.stringify({ type: 'entry.created', timestamp: new Date(at).toISOString(), projectId: 'prj_prune', data: {} });
  await store.events.append(
    { events: [{ id, projectId: 'prj_prune', type: 'entry.created', payload, createdAt: at }] },
    [
      {
        id: dlv,
        projectId: 'prj_prune',
        kind: 'webhook',
        webhookId: 'wh_prune',
        eventId: id,
        type: 'entry.created',
        recipient: null,
        data: null,
        nextAttemptAt: pending ? Date.now() + DAY : at,
        createdAt: at,
      },
    ],
    true,
  );
  if (!pending) {
    const claimed = await store.events.claimOne('wh_prune', dlv, at, 60_000);
    const outcome = DELIVERED;
    expect(await store.events.finish(dlv, claimed!.lease, outcome, at)).toBe(true);
  }
  return { id, dlv };
}

describe(`outbox prune on ${DIALECT}`, () => {
  it('drops what is older than the cut-off and no pending delivery needs, keeps the rest', async () => {
    const now = Date.now();
    const old = await eventAt(now - 40 * DAY);
    const oldPending = await eventAt(now - 40 * DAY, true);
    const recent = await eventAt(now - 10 * DAY);
    expect(await query('SELECT id FROM events')).toContain(old.id);
    expect(await query('SELECT id FROM deliveries')).toContain(old.dlv);
    await store.events.prune(now - 30 * DAY);
    expect((await query('SELECT id FROM events ORDER BY id')).sort()).toEqual([oldPending.id, recent.id].sort());
    expect((await query('SELECT id FROM deliveries ORDER BY id')).sort()).toEqual([oldPending.dlv, recent.dlv].sort());
  });

  it('the dispatcher prunes shortly after it starts, not only after an hour', async () => {
    const old = await eventAt(Date.now() - 45 * DAY);
    const dispatcher = new Dispatcher(store, { mailer: null, allowPrivateWebhooks: false, publicUrl: '', firstPruneMs: 50 });
    dispatcher.start();
    try {
      for (let i = 0; i < 100 && (await query('SELECT id FROM events')).includes(old.id); i++) await new Promise((r) => setTimeout(r, 50));
      expect(await query('SELECT id FROM events')).not.toContain(old.id);
      expect(await query('SELECT id FROM deliveries')).not.toContain(old.dlv);
    } finally {
      await dispatcher.stop();
    }
  });

  it('has no index on events.created_at', async () => {
    const names =
      DIALECT === 'pg'
        ? await query(`SELECT indexname FROM pg_indexes WHERE tablename = 'events'`)
        : await query(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'`);
    expect(names).not.toContain('events_created_idx');
    expect(names).toContain('events_unfanned_idx');
  });
});
