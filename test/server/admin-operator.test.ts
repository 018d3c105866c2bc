// `waitlist admin …` in-process on the database of a running server (SQLite and PostgreSQL): it never
// creates a database, every message names the database it opened, and the password prompt is the
// CLI's one reader (drawn on stderr, asked twice).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fails, ok } from '../helpers/api.js';
import { Client, projectWithKey, signedUp, useServer } from '../helpers/server.js';
import { cli } from '../cli/cli.js';

let owner: Client;
let dbArgs: string[];
/** How the messages must name this server's database. */
let dbName: string;

const srv = useServer();
beforeAll(async () => {
  owner = await signedUp(srv.url);
  const url = srv.dbEnv.DATABASE_URL;
  dbArgs = url ? ['--database-url', url] : ['--db', srv.dbFile];
  dbName = url ? url : resolve(srv.dbFile);
});

const admin = (args: string[], opts: Parameters<typeof cli>[1] = {}) => cli(['admin', ...args, ...dbArgs], opts);

describe('admin names its database', () => {
  it('restore says which database it restored the project in', async () => {
    const P = await projectWithKey(owner, 'Named Db');
    ok(await owner.del(`/api/project/${P.projectId}`));
    const r = await admin(['project', 'restore', P.projectId]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Restored project ${P.slug} (${P.projectId}) with its keys and entries in ${dbName}\n`);
    ok(await owner.get(`/api/project/${P.projectId}`));
  });

  it('restore of a project that is not deleted says so (exit 0) and changes nothing', async () => {
    const P = await projectWithKey(owner, 'Never Deleted');
    const before = ok(await owner.get(`/api/project/${P.projectId}`));
    const r = await admin(['project', 'restore', P.projectId]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`Project ${P.slug} (${P.projectId}) is not deleted: nothing to restore in ${dbName}\n`);
    expect(ok(await owner.get(`/api/project/${P.projectId}`))).toEqual(before);
    // Restored once, it is live: a second restore says the same.
    ok(await owner.del(`/api/project/${P.projectId}`));
    expect((await admin(['project', 'restore', P.projectId])).stdout).toMatch(/^Restored project /);
    expect((await admin(['project', 'restore', P.projectId])).stdout).toMatch(/ is not deleted: nothing to restore in /);
  });

  it('"not found" names the database, so a wrong --db is obvious', async () => {
    const r = await admin(['project', 'restore', 'prj_01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`error: Project not found (database ${dbName})\n`);
  });

  it('user add prompts for the password twice on a terminal (stderr) and names the database', async () => {
    const r = await admin(['user', 'add', '--email', 'prompted-op@example.com'], { tty: true, answers: ['ops password', 'ops password'] });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe('? Password:\n? Repeat password:\n');
    expect(r.stdout).toMatch(
      new RegExp(`^Created user prompted-op@example\\.com \\(usr_\\w+\\) in ${dbName.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\n$`),
    );
    ok(await new Client(srv.url).post('/api/auth/login', { email: 'prompted-op@example.com', password: 'ops password' }));
    const short = await admin(['user', 'reset-password', '--email', 'prompted-op@example.com'], { tty: true, answers: ['short', 'short'] });
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toContain('password: Password must be at least 8 characters');
    expect(short.stderr).not.toMatch(/--password\b(?!-stdin)/);
  });

  it('the PostgreSQL URL is named without its password', async () => {
    const { databaseName } = await import('../../src/cli/commands/admin-run.js');
    expect(databaseName({ file: 'x.db', databaseUrl: 'postgres://ops:s3cret@db.example.com:5432/waitlist' })).toBe(
      'postgres://ops@db.example.com:5432/waitlist',
    );
    expect(databaseName({ file: 'rel/x.db' })).toBe(resolve('rel/x.db'));
  });
});

describe('admin never creates a database', () => {
  it('a missing SQLite file is an error naming the path, and no file appears', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waitlist-nodb-'));
    const file = join(dir, 'waitlist.db');
    for (const args of [
      ['project', 'restore', 'prj_01ARZ3NDEKTSV4RRFFQ69G5FAV'],
      ['user', 'add', '--email', 'x@example.com', '--password-stdin'],
    ]) {
      const r = await cli(['admin', ...args, '--db', file], { input: 'long enough password' });
      expect(r.exitCode, args.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `error: no database at ${file}: pass --db <file> (or set WAITLIST_DB) naming the server's database, or --database-url for PostgreSQL\n`,
      );
      expect(existsSync(file)).toBe(false);
    }
    fails(await owner.get('/api/project/prj_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'not_found');
  });

  it("an existing file or database without the service's tables is refused and left as it was", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waitlist-notdb-'));
    const notes = join(dir, 'notes.db');
    writeFileSync(notes, 'not a database');
    const r1 = await cli(['admin', 'project', 'restore', 'prj_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--db', notes]);
    expect(r1.exitCode).toBe(1);
    expect(r1.stderr).toMatch(new RegExp(`^error: cannot open the database ${notes.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: `));
    expect(readFileSync(notes, 'utf8')).toBe('not a database');

    const other = join(dir, 'other.db');
    const db = new Database(other);
    db.exec('CREATE TABLE t (x)');
    db.close();
    const r2 = await cli(['admin', 'project', 'restore', 'prj_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--db', other]);
    expect(r2.exitCode).toBe(1);
    expect(r2.stderr).toContain(`error: ${other} is not a waitlist database (no users table`);
    const after = new Database(other, { readonly: true });
    expect(after.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all()).toEqual([{ name: 't' }]);
    after.close();

    if (process.env.WAITLIST_TEST_DB === 'pg' && process.env.TEST_DATABASE_URL) {
      const { createPgDatabase } = await import('../helpers/pg.js');
      const empty = await createPgDatabase(process.env.TEST_DATABASE_URL);
      const r3 = await cli(['admin', 'user', 'add', '--email', 'x@example.com', '--password-stdin', '--database-url', empty], {
        input: 'long enough password',
      });
      expect(r3.exitCode).toBe(1);
      expect(r3.stderr).toContain(`is not a waitlist database (no users table`);
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: empty });
      await c.connect();
      const { rows } = await c.query(
        `SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`,
      );
      await c.end();
      expect(rows[0].n).toBe(0); // nothing was migrated into it
    }
  });
});
