// Chooses the database once, where the store is created; everything above sees only `Store`.
import type { PgOptions } from './pg-options.js';
import type { Store } from './store.js';

export interface DbConfig {
  /** SQLite file path (used when no databaseUrl). */
  file: string;
  /** PostgreSQL URL; when set, PostgreSQL is used. */
  databaseUrl?: string | undefined;
  /** PostgreSQL pool size and timeouts (defaults: PG_DEFAULTS in pg-options.ts). */
  pg?: Partial<PgOptions> | undefined;
}

/** Opens the configured database and applies pending migrations. */
export async function openStore(config: DbConfig): Promise<Store> {
  if (config.databaseUrl) {
    const { openPgStore } = await import('./pg/store.js');
    return openPgStore(config.databaseUrl, config.pg);
  }
  const { openSqliteStore } = await import('./sqlite/store.js');
  return openSqliteStore(config.file);
}

export type { Store } from './store.js';
