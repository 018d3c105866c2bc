// Runs once per `vitest run`: says whether the PostgreSQL half runs, and drops its databases after.
import { dropPgDatabases } from './pg.js';

export default async function setup() {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    console.warn(
      '\n[waitlist] PostgreSQL tests SKIPPED: set TEST_DATABASE_URL=postgres://user@host:5432/db to run the HTTP ' +
        'suite and the multi-instance tests on PostgreSQL too (.ci/run does this).\n',
    );
    return;
  }
  return async () => {
    await dropPgDatabases(url);
  };
}
