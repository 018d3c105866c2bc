// Readiness checks: run together, bounded in time, cached; and which PostgreSQL errors mean "unavailable".
import { describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../../src/db/errors.js';
import { guardUnavailable } from '../../src/db/guard.js';
import { pgUnavailable } from '../../src/db/pg/unavailable.js';
import { Readiness } from '../../src/server/readiness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Readiness', () => {
  it('reports every check; a reason string, a throw or a hang makes it not ready', async () => {
    const r = new Readiness(
      [
        { name: 'database', check: async () => undefined },
        { name: 'outbox', check: async () => '5000 events waiting' },
        { name: 'secret', check: async () => Promise.reject(new Error('password=hunter2 in a message')) },
        { name: 'stuck', check: () => new Promise(() => undefined) },
        { name: 'down', check: async () => Promise.reject(new DatabaseUnavailableError('PostgreSQL is unreachable (ECONNREFUSED)', 2)) },
      ],
      1_000,
      100,
    );
    const report = await r.report();
    expect(report.ready).toBe(false);
    expect(report.retryAfterSeconds).toBe(2);
    expect(report.checks.map((c) => [c.name, c.ok, c.reason])).toEqual([
      ['database', true, undefined],
      ['outbox', false, '5000 events waiting'],
      ['secret', false, 'the check failed'], // an unknown error's text is never shown
      ['stuck', false, 'no answer within 100 ms'],
      ['down', false, 'PostgreSQL is unreachable (ECONNREFUSED)'],
    ]);
  });

  it('probes at most once per cache period, sharing the answer', async () => {
    let calls = 0;
    const r = new Readiness([{ name: 'db', check: async () => void calls++ }], 200, 100);
    await Promise.all([r.report(), r.report(), r.report()]);
    await r.report();
    expect(calls).toBe(1);
    await sleep(220);
    await r.report();
    expect(calls).toBe(2);
  });
});

describe('pgUnavailable', () => {
  const err = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});
  it.each([
    [err('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED'), 'PostgreSQL is unreachable (ECONNREFUSED)'],
    [err('terminating connection due to administrator command', '57P01'), 'PostgreSQL is shutting down (57P01)'],
    [err('the database system is starting up', '57P03'), 'PostgreSQL is starting up or in recovery (57P03)'],
    [err('sorry, too many clients already', '53300'), 'PostgreSQL has no free connection slots (53300)'],
    [err('canceling statement due to statement timeout', '57014'), 'a statement ran past the statement timeout (57014)'],
    [err('cannot execute INSERT in a read-only transaction', '25006'), 'the database is read-only (a standby?) (25006)'],
    [err('timeout exceeded when trying to connect'), 'no database connection became free in time (pool acquire timeout)'],
    [err('Connection terminated unexpectedly'), 'the connection to PostgreSQL was lost'],
    [err('timeout expired'), 'connecting to PostgreSQL timed out'],
    [
      Object.assign(new Error('Failed query: insert into entries … params: a@b.c'), { cause: err('x', '08006') }),
      'the connection to PostgreSQL failed (08006)',
    ],
  ])('%s → 503', (e, reason) => {
    const u = pgUnavailable(e);
    expect(u).toBeInstanceOf(DatabaseUnavailableError);
    expect(u!.message).toBe(reason);
    expect(u!.cause).toBe(e);
  });

  it.each([
    err('duplicate key value violates unique constraint', '23505'),
    err('syntax error at or near "SELEC"', '42601'),
    err('Cannot read properties of undefined'),
    'a string',
  ])('%s is not an outage', (e) => {
    expect(pgUnavailable(e)).toBeUndefined();
  });

  it('guardUnavailable turns a method rejection into DatabaseUnavailableError and leaves others alone', async () => {
    const store = guardUnavailable(
      {
        n: 1,
        down: async () => Promise.reject(err('x', '57P01')),
        bug: async () => Promise.reject(err('y', '42601')),
        sync: function (this: { n: number }) {
          return this.n;
        },
      },
      pgUnavailable,
    );
    await expect(store.down()).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(store.bug()).rejects.toMatchObject({ code: '42601' });
    expect(store.sync()).toBe(1);
  });
});
