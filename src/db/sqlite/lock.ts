// One SQLite file, one server: rate limits, the login back-off and the join batcher live in the
// server's memory, so two servers on one file would each enforce their own limits. The server holds an
// exclusive lock on a small companion file (`<db>.lock`, itself a SQLite database in exclusive locking
// mode) for as long as it runs; the operating system drops the lock when the process ends, however it
// ends, so there is no stale lock to clean up. The `admin` commands do not take it.
import { dirname, resolve } from 'node:path';

export interface DatabaseLock {
  readonly path: string;
  release(): void;
}

/** Takes the server lock for a SQLite file, or throws an Error that says what to do instead. */
export async function lockDatabase(file: string): Promise<DatabaseLock | undefined> {
  if (file === ':memory:' || file === '') return undefined;
  const { default: Database } = await import('better-sqlite3');
  const path = `${resolve(file)}.lock`;
  let db: InstanceType<typeof Database>;
  try {
    db = new Database(path, { timeout: 0 });
  } catch (err) {
    throw new Error(
      `Cannot create the lock file ${path} next to the database: ${(err as Error).message}. ` +
        `Is the directory ${dirname(path)} writable?`,
    );
  }
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = MEMORY');
    // The first write takes the exclusive lock; in this locking mode it is kept until close.
    db.exec(`BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (pid INTEGER, since INTEGER); DELETE FROM holder;
      INSERT INTO holder VALUES (${process.pid}, ${Date.now()}); COMMIT;`);
  } catch (err) {
    db.close();
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      throw new Error(
        `Another waitlist server is already using ${resolve(file)} (it holds ${path}). One SQLite file serves one ` +
          'server process; to run several instances, use PostgreSQL (--database-url / DATABASE_URL).',
      );
    }
    throw new Error(`Cannot lock ${path}: ${(err as Error).message}`);
  }
  return { path, release: () => db.close() };
}
