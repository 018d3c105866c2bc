// `waitlist entry import`: a hosted-tool CSV and an NDJSON file through the CLI, dry run first, then
// for real; bad rows by line on stderr; a missing file is a usage error.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';
import { useCliUser, cli, cliJson } from './cli.js';

const GW = join(ROOT, 'test/fixtures/import/getwaitlist-style.csv');

const user = useCliUser({}, { name: 'Imports', slug: 'imports' });
const { as } = user;

describe('entry import', () => {
  it('--dry-run reports and writes nothing; then the real import keeps the good rows', async () => {
    const dry = await cliJson(['entry', 'import', '--project', 'imports', '--file', GW, '--dry-run'], as());
    expect(dry).toMatchObject({ dryRun: true, imported: 37, duplicates: 1, invalidCount: 2 });
    expect(await cliJson(['entry', 'list', '--project', 'imports'], as())).toHaveLength(0);
    const r = await cli(['entry', 'import', '--project', 'imports', '--file', GW], as());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('Imported 37 entries; 1 duplicate skipped; 2 bad rows');
    expect(r.stderr).toContain('line 11: Invalid email "not-an-email"');
    expect(r.stdout).toContain('11\tInvalid email "not-an-email"\n'); // TSV of the bad rows when piped
    const list = await cliJson(['entry', 'list', '--project', 'imports', '--all'], as());
    expect(list).toHaveLength(37);
  });

  it('NDJSON by extension; a missing file is a usage error (exit 2)', async () => {
    const file = join(user.home, 'people.jsonl');
    writeFileSync(file, `${JSON.stringify({ email: 'jsonl@example.com', name: 'J' })}\n`);
    expect(await cliJson(['entry', 'import', '--project', 'imports', '--file', file], as())).toMatchObject({ imported: 1 });
    const nope = join(user.home, 'nope.csv');
    const missing = await cli(['entry', 'import', '--project', 'imports', '--file', nope], as());
    expect(missing).toEqual({ exitCode: 2, stdout: '', stderr: `error: cannot read ${nope}: no such file\n` });
  });

  it('one of each reads in the singular; a Windows-1252 file is read as such', async () => {
    const file = join(user.home, 'one.csv');
    writeFileSync(file, Buffer.from('email,name\none@example.com,Fran\xe7ois\none@example.com,dup\nnot-an-email,x\n', 'latin1'));
    const r = await cli(['entry', 'import', '--project', 'imports', '--file', file], as());
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain('Imported 1 entry; 1 duplicate skipped; 1 bad row\n');
    const list = await cliJson(['entry', 'list', '--project', 'imports', '--all'], as());
    expect(list.find((e: { email: string }) => e.email === 'one@example.com')).toMatchObject({ name: 'François' });
  });

  it('a directory is a local read error (exit 2), not "cannot reach the server"', async () => {
    const r = await cli(['entry', 'import', '--project', 'imports', '--file', user.home], as());
    expect(r).toEqual({ exitCode: 2, stdout: '', stderr: `error: cannot read ${user.home}: it is a directory\n` });
  });

  it('a file without an email column is refused with the reason', async () => {
    const file = join(user.home, 'bad.csv');
    writeFileSync(file, 'name\nAda\n');
    const r = await cli(['entry', 'import', '--project', 'imports', '--file', file], as());
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/email/i);
  });
});
