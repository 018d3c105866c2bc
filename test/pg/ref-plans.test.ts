// The join batch's crediting INSERT (insertResolvingRefs + insertCrediting, src/db/pg/lifecycle.ts) must
// find referrers through the unique (project_id, referral_code) index and the primary key, whatever the
// statistics. On a new table that autovacuum had not analysed yet, the generic plan of the named
// statement read the referral code and the referrer through a partial index on live entries that only
// starts with project_id, filtering the project's every entry per referred join: 50 ms a batch, a
// seventh of the joins/s. The plan is read here as the server gets it: a named statement, a generic
// plan (as after five executions), on a table of a few thousand rows that was never analysed, through
// auto_explain sent to the client.
import { PgDialect } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertCrediting, insertResolvingRefs } from '../../src/db/pg/lifecycle.js';
import { openPgStore } from '../../src/db/pg/store.js';
import type { EntryRow, Store } from '../../src/db/store.js';
import { createPgDatabase } from '../helpers/pg.js';
import { entry, projectWithKeyIn } from '../store/conformance.js';

const baseUrl = process.env.TEST_DATABASE_URL;
const N = 3000;

describe.skipIf(!baseUrl)('the crediting INSERT plan on PostgreSQL, before any statistics', () => {
  let url: string;
  let store: Store;
  let client: pg.Client;
  let projectId: string;
  let codes: string[];

  beforeAll(async () => {
    url = await createPgDatabase(baseUrl!);
    store = await openPgStore(url);
    client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('ALTER TABLE entries SET (autovacuum_enabled = false)'); // no statistics, as on a new install
    const { p, k } = await projectWithKeyIn(store);
    projectId = p.id;
    codes = [];
    for (let i = 0; i < N; i += 500) {
      const rows = Array.from({ length: 500 }, (_, j) => entry(p.id, { referralCode: `plan-${i + j}` }));
      await Promise.all(rows.map((r) => store.insertEntry(r, k.id)));
      codes.push(...rows.map((r) => r.referralCode!));
    }
  });
  afterAll(async () => {
    await client?.end();
    await store?.close();
  });

  it('uses the referral-code index and the primary key, not a scan of the project', async () => {
    const { rows: stats } = await client.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE relname = 'entries'`);
    expect(Number(stats[0]!.reltuples)).toBeLessThan(N / 2); // not analysed: the case this test is about
    const rows: EntryRow[] = Array.from({ length: 20 }, (_, i) => ({ ...entry(projectId), ordinal: N + 10 + i, k: N + 10 + i }));
    const refs = rows.map((_, i) => codes[(i * 137) % codes.length]!);
    const statement = insertCrediting(
      insertResolvingRefs(
        rows,
        refs,
        sql`ON CONFLICT (project_id, email_norm) WHERE deleted_at IS NULL DO NOTHING RETURNING id, project_id, referred_by, status`,
      ),
    );
    const { sql: text, params } = new PgDialect().sqlToQuery(statement);
    const plans: string[] = [];
    client.on('notice', (n) => plans.push(n.message ?? ''));
    await client.query('BEGIN');
    try {
      await client.query(`LOAD 'auto_explain'`);
      await client.query(`SET LOCAL auto_explain.log_min_duration = 0`);
      await client.query(`SET LOCAL auto_explain.log_level = notice`);
      await client.query(`SET LOCAL auto_explain.log_nested_statements = on`);
      await client.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
      await client.query(`SET LOCAL client_min_messages = notice`);
      const r = await client.query({ name: 'credit_plan', text, values: params as unknown[] });
      expect(r.rows).toHaveLength(20); // the statement ran: 20 referred joins, each credited (rolled back below)
    } finally {
      await client.query('ROLLBACK');
    }
    const plan = plans.find((p) => p.includes('Insert on entries'));
    expect(plan, plans.join('\n---\n')).toBeDefined();
    expect(plan).toContain('entries_referral_code_uq');
    expect(plan).toContain('entries_pkey');
    for (const partial of ['entries_queue_idx', 'entries_referrals_idx', 'entries_pending_idx', 'entries_live_list_idx']) {
      expect(plan).not.toContain(partial);
    }
    expect(plan).not.toMatch(/Seq Scan on entries/);
  });
});
