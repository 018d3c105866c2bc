// project and key commands: --json (parsed), TSV off a terminal, a table with WAITLIST_FORCE_TTY,
// --project by id or slug, delete refused without --yes off a terminal, exit codes 1 and 2.
import { describe, expect, it } from 'vitest';
import { postJoin } from '../helpers/server.js';
import { useCliUser, cli, cliJson } from './cli.js';

const user = useCliUser();
const { srv, as } = user;

describe('project', () => {
  it('create, get (id and slug), list, update, delete with --json', async () => {
    const created = await cliJson(['project', 'create', '--name', 'Alpha App', '--slug', 'alpha-app'], as());
    expect(created).toMatchObject({ name: 'Alpha App', slug: 'alpha-app', projectId: expect.stringMatching(/^prj_/) });
    expect(Object.keys(created).sort()).toEqual(['createdAt', 'name', 'projectId', 'slug', 'updatedAt']);

    expect(await cliJson(['project', 'get', 'alpha-app'], as())).toEqual(created);
    expect(await cliJson(['project', 'get', created.projectId], as())).toEqual(created);

    const derived = await cliJson(['project', 'create', '--name', 'Beta Thing'], as());
    expect(derived.slug).toBe('beta-thing');

    const list = await cliJson(['project', 'list'], as());
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((p: { slug: string }) => p.slug).sort()).toEqual(['alpha-app', 'beta-thing']);
    // --json before the command means the same.
    const before = await cli(['--json', 'project', 'list'], as());
    expect(before.exitCode).toBe(0);
    expect(JSON.parse(before.stdout)).toEqual(list);

    const renamed = await cliJson(['project', 'update', 'alpha-app', '--name', 'Alpha Renamed'], as());
    expect(renamed).toMatchObject({ projectId: created.projectId, name: 'Alpha Renamed', slug: 'alpha-app' });

    const deleted = await cliJson(['project', 'delete', derived.projectId, '--yes'], as());
    expect(deleted).toMatchObject({ projectId: derived.projectId, deletedAt: expect.any(String) });
    const gone = await cli(['project', 'get', 'beta-thing'], as());
    expect(gone.exitCode).toBe(1);
    expect(gone.stdout).toBe('');
    expect(gone.stderr).toMatch(/^error: Project not found \(not_found\)\n$/);
  });

  it('prints TSV rows off a terminal and a table with WAITLIST_FORCE_TTY (no colour with NO_COLOR)', async () => {
    await cliJson(['project', 'create', '--name', 'Tsv Project', '--slug', 'tsv-project'], as());
    const tsv = await cli(['project', 'list'], as());
    expect(tsv.exitCode).toBe(0);
    const row = tsv.stdout.split('\n').find((l) => l.includes('tsv-project'))!;
    expect(row.split('\t')).toEqual([
      expect.stringMatching(/^prj_/),
      'Tsv Project',
      'tsv-project',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    ]);
    expect(tsv.stdout).not.toContain('\x1b[');

    const table = await cli(['project', 'list'], { home: user.home, env: { WAITLIST_FORCE_TTY: '1', NO_COLOR: '1' } });
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toMatch(/┌.*┐/);
    expect(table.stdout).toMatch(/│ PROJECT ID\s+│ NAME\s+│ SLUG\s+│ CREATED\s+│/);
    expect(table.stdout).toMatch(/│ tsv-project │/);
    expect(table.stdout).not.toContain('\x1b[');

    const coloured = await cli(['project', 'list'], { home: user.home, env: { WAITLIST_FORCE_TTY: '1' } });
    expect(coloured.stdout).toContain('\x1b[1mPROJECT ID');
  });

  it('usage errors exit 2 and change nothing; server errors exit 1 with message and code', async () => {
    const missing = await cli(['project', 'create'], as());
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("required option '--name <name>'");
    const badSlug = await cli(['project', 'create', '--name', 'X', '--slug', 'Bad Slug'], as());
    expect(badSlug.exitCode).toBe(2);
    expect(badSlug.stderr).toContain('--slug');
    const unknown = await cli(['project', 'frobnicate'], as());
    expect(unknown.exitCode).toBe(2);
    const taken = await cli(['project', 'create', '--name', 'Again', '--slug', 'tsv-project'], as());
    expect(taken.exitCode).toBe(1);
    expect(taken.stdout).toBe('');
    expect(taken.stderr).toMatch(/^error: .*tsv-project.* \(slug_taken\)/);
    expect((await cliJson(['project', 'list'], as())).filter((p: { name: string }) => p.name === 'X' || p.name === 'Again')).toEqual([]);
  });

  it('refuses delete without --yes off a terminal and changes nothing', async () => {
    const p = await cliJson(['project', 'create', '--name', 'Keep Me'], as());
    const r = await cli(['project', 'delete', p.slug], as());
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--yes');
    expect(await cliJson(['project', 'get', p.projectId], as())).toEqual(p);
  });
});

describe('delete confirmation on a terminal (in-process prompts)', () => {
  it('asks with the project named: "no" changes nothing (exit 1), "yes" deletes; a wrong id fails before asking', async () => {
    const p = await cliJson(['project', 'create', '--name', 'Ask In Process', '--slug', 'ask-in-process'], as());
    const no = await cli(['project', 'delete', 'ask-in-process'], { home: user.home, tty: true, answers: [false] });
    expect(no.exitCode).toBe(1);
    expect(no.stderr).toContain('? Delete project Ask In Process (ask-in-process)?');
    expect(no.stderr).toContain('cancelled: nothing was deleted');
    expect(await cliJson(['project', 'get', 'ask-in-process'], as())).toEqual(p);
    const missing = await cli(['project', 'delete', 'no-such-project'], { home: user.home, tty: true });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('(not_found)');
    const yes = await cli(['project', 'delete', 'ask-in-process'], { home: user.home, tty: true, answers: [true] });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect((await cli(['project', 'get', 'ask-in-process'], as())).exitCode).toBe(1);
  });
});

describe('key', () => {
  it('create prints the full key once; list/get/update/delete with --json; --project by slug or id', async () => {
    const p = await cliJson(['project', 'create', '--name', 'Keyed', '--slug', 'keyed'], as());
    const k = await cliJson(['key', 'create', '--project', 'keyed', '--name', 'landing page'], as());
    expect(k).toMatchObject({ keyId: expect.stringMatching(/^key_/), name: 'landing page', lastUsedAt: null });
    expect(k.key).toMatch(/^wl_/);
    expect(k.key.startsWith(k.prefix)).toBe(true);

    const join = await postJoin(srv.url, 'keyed', k.key, { email: 'joined@example.com' });
    expect(join.status).toBe(201);

    const list = await cliJson(['key', 'list', '--project', p.projectId], as());
    expect(list).toHaveLength(1);
    expect(list[0]).not.toHaveProperty('key');
    expect(list[0]).toMatchObject({ keyId: k.keyId, prefix: k.prefix });

    const got = await cliJson(['key', 'get', k.keyId, '--project', 'keyed'], as());
    expect(got).toMatchObject({ keyId: k.keyId, name: 'landing page' });
    expect(got).not.toHaveProperty('key');
    expect(got.lastUsedAt).toEqual(expect.any(String));

    const renamed = await cliJson(['key', 'update', k.keyId, '--project', 'keyed', '--name', 'old page'], as());
    expect(renamed.name).toBe('old page');

    const refused = await cli(['key', 'delete', k.keyId, '--project', 'keyed'], as());
    expect(refused.exitCode).not.toBe(0);
    expect((await postJoin(srv.url, 'keyed', k.key, { email: 'still-works@example.com' })).status).toBe(201);

    const revoked = await cliJson(['key', 'delete', k.keyId, '--project', 'keyed', '--yes'], as());
    expect(revoked).toMatchObject({ keyId: k.keyId, deletedAt: expect.any(String) });
    expect((await postJoin(srv.url, 'keyed', k.key, { email: 'too-late@example.com' })).status).toBe(401);
    expect(await cliJson(['key', 'list', '--project', 'keyed'], as())).toEqual([]);
  });

  it('key create shows the documented columns (every key column, then KEY); a missing --project is a usage error', async () => {
    await cliJson(['project', 'create', '--name', 'Keyed Two', '--slug', 'keyed-two'], as());
    const r = await cli(['key', 'create', '--project', 'keyed-two', '--name', 'ci'], as());
    expect(r.exitCode).toBe(0);
    const cells = r.stdout.trimEnd().split('\t');
    expect(cells).toEqual([
      expect.stringMatching(/^key_/),
      'ci',
      expect.stringMatching(/^wl_pk_/),
      expect.stringMatching(/^\d{4}-/),
      '',
      'publishable',
      expect.stringMatching(/^wl_pk_/),
    ]);
    expect(cells[6]!.startsWith(cells[2]!)).toBe(true);
    const table = await cli(['key', 'create', '--project', 'keyed-two', '--name', 'table'], {
      home: user.home,
      env: { WAITLIST_FORCE_TTY: '1', NO_COLOR: '1' },
    });
    expect(table.stdout).toMatch(/│ KEY ID +│ NAME +│ PREFIX +│ CREATED +│ LAST USED +│ KIND +│ KEY +│/);
    expect(table.stdout).toMatch(/│ never +│ publishable +│ wl_pk_/);
    const missing = await cli(['key', 'list'], as());
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain('--project');
    const other = await cli(['key', 'list', '--project', 'no-such-project'], as());
    expect(other.exitCode).toBe(1);
    expect(other.stderr).toContain('(not_found)');
  });
});
