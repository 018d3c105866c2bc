// A PostgreSQL join batch with no referral (src/db/pg/join-batch.ts, writePlain) sends its INSERT with
// its BEGIN, each row's ordinal computed by the INSERT, and builds its events while that round trip
// runs, before the positions are known: each new waiting entry stands in with a number made of a
// random tag and its index in the batch, replaced in the payload's SQL text once the positions are in.
// Checked here on a real database: rows and ordinals as written, payload positions against the queue,
// the first batch of a project (no subscribers known yet) and the next (guessed), and a payload that
// holds its stand-in twice, which must be built again rather than patched once.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entryData, entryEvent } from '../../src/core/outbox.js';
import type { OutboxWrites } from '../../src/db/outbox.js';
import { type PendingJoin, SubscriberGuesses, writeJoins } from '../../src/db/pg/join-batch.js';
import { inTransaction } from '../../src/db/pg/named.js';
import { type EntryRow, positionAtInsert, type Store } from '../../src/db/store.js';
import { createPgDatabase } from '../helpers/pg.js';
import { entry, projectWithKeyIn, webhook } from '../store/conformance.js';

const baseUrl = process.env.TEST_DATABASE_URL;

describe.skipIf(!baseUrl)('a PostgreSQL join batch without referrals', () => {
  let store: Store;
  let pool: pg.Pool;
  let projectId: string;
  let keyId: string;
  const guesses = new SubscriberGuesses();

  beforeAll(async () => {
    const { openPgStore } = await import('../../src/db/pg/store.js');
    const url = await createPgDatabase(baseUrl!);
    store = await openPgStore(url);
    const { p, k } = await projectWithKeyIn(store);
    projectId = p.id;
    keyId = k.id;
    await store.events.insertWebhook(webhook(projectId, 'wh_jb1', ['entry.created']));
    pool = new pg.Pool({ connectionString: url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await store?.close();
  });

  const created = (row: EntryRow): OutboxWrites => ({
    events: [entryEvent('entry.created', row.projectId, entryData(row), row.createdAt)],
  });
  const pending = (rows: EntryRow[], outbox = created): PendingJoin[] => rows.map((row) => ({ row, keyId, outbox, ref: undefined }));
  const write = (batch: PendingJoin[]) => inTransaction(pool, (client) => writeJoins(client, batch, guesses));

  /** The payload `data` of each entry.created written for `ids`, by entry id. */
  async function payloads(ids: string[]) {
    const r = await pool.query<{ payload: string }>(
      `SELECT payload FROM events WHERE type = 'entry.created' AND payload::jsonb->'data'->>'entryId' = ANY($1)`,
      [ids],
    );
    return new Map(r.rows.map((x) => JSON.parse(x.payload).data).map((d) => [d.entryId as string, d]));
  }

  it('writes the rows exactly, with consecutive ordinals, and each payload with its entry position, first and later batches', async () => {
    let queued = 0;
    for (const round of [0, 1, 2]) {
      // Round 0 knows no subscriber of the project yet: its payloads are built after the answer.
      const names = [`O'Brien ${round}`, 'back\\slash \'\' "q"', 'Zoë 🎉 7123456789010000', null];
      const metadata = JSON.stringify({ note: "it's \\'; DROP TABLE entries; --", n: 712345678901 });
      const rows = names.map((name, i) => entry(projectId, { email: `jb${round}-${i}@x.io`, name, metadata }));
      rows.push(entry(projectId, { email: `jb${round}-p@x.io`, status: 'pending' })); // no position
      const { ids, wrote } = await write(pending(rows));
      expect(ids.size).toBe(rows.length);
      expect(wrote).toBe(true);
      const back = await pool.query<{ id: string; name: string | null; metadata: string; status: string; ordinal: string; k: string }>(
        'SELECT id, name, metadata, status, ordinal, k FROM entries WHERE id = ANY($1)',
        [rows.map((r) => r.id)],
      );
      const byId = new Map(back.rows.map((r) => [r.id, r]));
      for (const r of rows) {
        const b = byId.get(r.id)!;
        expect({ name: b.name, metadata: b.metadata, status: b.status }).toEqual({ name: r.name, metadata: r.metadata, status: r.status });
        expect(Number(b.ordinal)).toBe(r.ordinal); // the ordinal the INSERT computed is the one the server gave the row
        expect(Number(b.k)).toBe(r.ordinal);
      }
      expect(rows.map((r) => r.ordinal)).toEqual(rows.map((_, i) => rows[0]!.ordinal + i));
      const data = await payloads(rows.map((r) => r.id));
      for (const [i, r] of rows.entries()) {
        const expected = r.status === 'waiting' ? queued + i + 1 : null;
        expect(positionAtInsert.get(r) ?? null).toBe(expected);
        expect(data.get(r.id)).toMatchObject({ email: r.email, name: r.name, position: expected, metadata: JSON.parse(r.metadata) });
      }
      queued += rows.filter((r) => r.status === 'waiting').length;
    }
    const deliveries = await pool.query<{ n: string }>("SELECT count(*) AS n FROM deliveries WHERE webhook_id = 'wh_jb1'");
    expect(Number(deliveries.rows[0]!.n)).toBe(15);
  });

  it('builds a payload that holds its position twice again, instead of patching one of the two', async () => {
    const twice = (row: EntryRow): OutboxWrites => ({
      events: [
        entryEvent(
          'entry.created',
          row.projectId,
          () => ({ entryId: row.id, position: positionAtInsert.get(row), again: positionAtInsert.get(row) }),
          row.createdAt,
        ),
      ],
    });
    const before = Number((await pool.query<{ n: string }>("SELECT count(*) AS n FROM entries WHERE status = 'waiting'")).rows[0]!.n);
    const rows = [0, 1, 2].map((i) => entry(projectId, { email: `twice-${i}@x.io` }));
    await write(pending(rows, twice));
    const data = await payloads(rows.map((r) => r.id));
    for (const [i, r] of rows.entries()) expect(data.get(r.id)).toEqual({ entryId: r.id, position: before + i + 1, again: before + i + 1 });
  });
});
