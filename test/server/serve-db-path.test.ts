// `waitlist serve --db X` where X cannot be a SQLite database (a directory, a file that is not SQLite):
// the server does not start, exit 1, and the one-line message names the path, not only SQLite's words.
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-dbpath-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// execa drops the final newline: each stderr below is exactly one line, no stack trace.
const serve = (db: string, cwd = dir) =>
  execa('node', [BIN, 'serve', '--port', '0', '--db', db], {
    cwd,
    env: { WAITLIST_DB: '', DATABASE_URL: '', PORT: '', HOST: '', WAITLIST_RATE_LIMIT: 'off' },
    reject: false,
    timeout: 20_000,
  });

describe.skipIf(process.platform === 'win32')('serve --db that cannot be opened', () => {
  it('a directory: the message names it (absolute path) and says --db takes a file', async () => {
    const d = join(dir, 'somedir');
    mkdirSync(d);
    const r = await serve('somedir');
    expect(r.exitCode).toBe(1);
    expect(r.stdout).not.toMatch(/listening on/);
    expect(r.stderr).toBe(
      `error: cannot open the database ${d}: unable to open database file ` +
        '(it is a directory; --db names the database file, like --db <dir>/waitlist.db)',
    );
  });

  it('a file that is not SQLite: the message names it, the file is left as it was', async () => {
    const f = join(dir, 'notes.db');
    writeFileSync(f, 'not a database, just notes\n'.repeat(10));
    const r = await serve(f);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).not.toMatch(/listening on/);
    expect(r.stderr).toBe(`error: cannot open the database ${f}: file is not a database`);
    expect(readFileSync(f, 'utf8')).toBe('not a database, just notes\n'.repeat(10));
  });
});
