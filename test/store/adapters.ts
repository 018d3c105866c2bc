// The Store adapters the conformance suite runs against: SQLite (a temp file) always, PostgreSQL (a fresh
// database on TEST_DATABASE_URL's cluster) when that variable is set. Add a dialect here and it gets
// the whole suite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../src/db/store.js';

export interface Adapter {
  name: 'sqlite' | 'pg';
  /** Opens a store on an empty, migrated database; `dispose` closes it and removes what it can. */
  open(): Promise<{ store: Store; dispose(): Promise<void> }>;
}

const sqlite: Adapter = {
  name: 'sqlite',
  async open() {
    const { openSqliteStore } = await import('../../src/db/sqlite/store.js');
    const dir = mkdtempSync(join(tmpdir(), 'waitlist-store-'));
    const store = openSqliteStore(join(dir, 'store.db'));
    return {
      store,
      async dispose() {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const pg: Adapter = {
  name: 'pg',
  async open() {
    const { createPgDatabase } = await import('../helpers/pg.js');
    const { openPgStore } = await import('../../src/db/pg/store.js');
    const store = await openPgStore(await createPgDatabase(process.env.TEST_DATABASE_URL!));
    // The database itself is dropped with the run's others (test/helpers/global-setup.ts).
    return { store, dispose: () => store.close() };
  },
};

/** The adapters to run: PostgreSQL only when TEST_DATABASE_URL names a cluster. */
export const ADAPTERS: Adapter[] = process.env.TEST_DATABASE_URL ? [sqlite, pg] : [sqlite];

/** The adapter for one dialect (tests below the HTTP layer that run on the suite's database). */
export const adapterFor = (dialect: Adapter['name']): Adapter => (dialect === 'pg' ? pg : sqlite);
