// The server in the test process: the real startServer (src/server/serve.ts: store, migrations, createApp,
// node:http) on port 0 and a fresh database (temp SQLite, or a fresh PostgreSQL database when the suite
// runs on PostgreSQL), without spawning `node bin/waitlist.js`. Use it for HTTP behaviour; keep the
// process tests (test/helpers/server.ts) for start-up, flags, signals, crashes and logs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RATE_LIMIT_DEFAULTS } from '../../src/server/ratelimit.js';
import { startServer, type RunningServer, type ServeConfig } from '../../src/server/serve.js';
import { DIALECT } from './server.js';

export interface InProcessServer {
  url: string;
  app: RunningServer['app'];
  /** The SQLite file (also set on PostgreSQL runs, where it is never created). */
  dbFile: string;
  /** Env that points `waitlist admin …` at this server's database. */
  dbEnv: Record<string, string>;
  stop(): Promise<void>;
}

/** Starts the app in this process on 127.0.0.1:0; rate limits off unless `rateLimit: true` is given. */
export async function startApp(config: Partial<ServeConfig> = {}): Promise<InProcessServer> {
  const dir = mkdtempSync(join(tmpdir(), 'waitlist-app-'));
  const file = join(dir, 'test.db');
  let databaseUrl: string | undefined;
  if (DIALECT === 'pg') {
    const { createPgDatabase } = await import('./pg.js');
    databaseUrl = await createPgDatabase(process.env.TEST_DATABASE_URL!);
  }
  const running = await startServer({
    ...RATE_LIMIT_DEFAULTS,
    port: 0,
    host: '127.0.0.1',
    file,
    databaseUrl,
    openSignup: false,
    trustProxy: false,
    rateLimit: false,
    ...config,
  });
  return {
    url: running.url,
    app: running.app,
    dbFile: file,
    dbEnv: databaseUrl ? { DATABASE_URL: databaseUrl } : { WAITLIST_DB: file, DATABASE_URL: '' },
    async stop() {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
