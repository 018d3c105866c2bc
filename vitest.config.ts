import { defineConfig } from 'vitest/config';

// The HTTP suite runs twice when TEST_DATABASE_URL is set: on SQLite and on PostgreSQL.
const pg = Boolean(process.env.TEST_DATABASE_URL);
// Names this run's PostgreSQL test databases (see test/helpers/pg.ts).
process.env.WAITLIST_TEST_RUN ??= `${Date.now().toString(36)}${process.pid.toString(36)}`;

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits up to 10 s (Vitest's default is 1 s): a browser page on a machine busy with the
    // rest of the suite can take longer than a second to load its data (a Queue-tab test missed it once).
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // The tests mostly wait on spawned servers, so more workers than cores pays off.
    maxWorkers: 4,
    globalSetup: ['test/helpers/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['test/**/*.test.ts'], exclude: ['test/pg/**'], env: { WAITLIST_TEST_DB: 'sqlite' } },
      },
      ...(pg
        ? [
            {
              extends: true as const,
              test: {
                name: 'pg',
                include: ['test/server/**/*.test.ts', 'test/pg/**/*.test.ts', 'test/hardening/properties.test.ts'],
                env: { WAITLIST_TEST_DB: 'pg' },
              },
            },
          ]
        : []),
    ],
  },
});
