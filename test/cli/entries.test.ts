// entry list (one page, --all across pages, search), get / update / delete, and export to stdout and
// to a file in csv, json and ndjson.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { useCliUser, cli, cliJson, seedEntries } from './cli.js';

const N = 23;
let emails: string[];

const user = useCliUser({}, { name: 'Entries', slug: 'entries' });
const { srv, as } = user;
beforeAll(async () => {
  const key = await cliJson(['key', 'create', '--project', 'entries', '--name', 'seed'], as());
  emails = await seedEntries(srv.url, 'entries', key.key, N);
});

describe('entry list', () => {
  it('one page with --page/--limit; --json is the array of items', async () => {
    const first = await cliJson(['entry', 'list', '--project', 'entries', '--limit', '5'], as());
    expect(first).toHaveLength(5);
    expect(first[0]).toMatchObject({ entryId: expect.stringMatching(/^ent_/), source: 'landing-page', metadata: expect.any(Object) });
    const second = await cliJson(['entry', 'list', '--project', 'entries', '--limit', '5', '--page', '2'], as());
    expect(second).toHaveLength(5);
    expect(second.map((e: { entryId: string }) => e.entryId)).not.toContain(first[0].entryId);
    const dflt = await cliJson(['entry', 'list', '--project', 'entries'], as());
    expect(dflt).toHaveLength(20);
  });

  it('--all walks every page (limit 4 → 6 pages) without repeats', async () => {
    const all = await cliJson(['entry', 'list', '--project', 'entries', '--all', '--limit', '4'], as());
    expect(all).toHaveLength(N);
    expect(new Set(all.map((e: { email: string }) => e.email))).toEqual(new Set(emails));
    // newest first
    const times = all.map((e: { createdAt: string }) => e.createdAt);
    expect([...times].sort().reverse()).toEqual(times);

    const tsv = await cli(['entry', 'list', '--project', 'entries', '--all', '--limit', '4'], as());
    const rows = tsv.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(N);
    expect(rows.every((r) => r.split('\t').length === 8)).toBe(true); // … CREATED, STATUS, POSITION

    const table = await cli(['entry', 'list', '--project', 'entries', '--all', '--limit', '10'], {
      home: user.home,
      env: { WAITLIST_FORCE_TTY: '1', NO_COLOR: '1' },
    });
    expect(table.stdout.match(/│ ent_/g)).toHaveLength(N);
  });

  it('--search filters; --all with --page and a bad --limit are usage errors', async () => {
    const hits = await cliJson(['entry', 'list', '--project', 'entries', '--search', 'SUB-1', '--all'], as());
    expect(hits.map((e: { email: string }) => e.email).sort()).toEqual(emails.filter((e) => e.startsWith('sub-1')).sort());
    const missing = await cli(['entry', 'list', '--project', 'no-such-project', '--all', '--json'], as());
    expect(missing.exitCode).toBe(1);
    expect(missing.stdout).toBe('');
    for (const bad of [
      ['--all', '--page', '2'],
      ['--limit', '0'],
      ['--limit', '101'],
      ['--page', 'x'],
    ]) {
      const r = await cli(['entry', 'list', '--project', 'entries', ...bad], as());
      expect(r.exitCode, bad.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }
  });
});

describe('entry get / update / delete', () => {
  it('gets, updates name and metadata, refuses delete without --yes, deletes with --yes', async () => {
    const [e] = await cliJson(['entry', 'list', '--project', 'entries', '--limit', '1'], as());
    expect(await cliJson(['entry', 'get', e.entryId, '--project', 'entries'], as())).toEqual(e);

    const upd = await cliJson(
      ['entry', 'update', e.entryId, '--project', 'entries', '--name', 'Ada', '--metadata', '{"plan":"pro","tags":["a"]}'],
      as(),
    );
    expect(upd).toMatchObject({ entryId: e.entryId, name: 'Ada', metadata: { plan: 'pro', tags: ['a'] } });

    for (const bad of [['--metadata', '{nope'], ['--metadata', '[1,2]'], []]) {
      const r = await cli(['entry', 'update', e.entryId, '--project', 'entries', ...bad], as());
      expect(r.exitCode, bad.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
    }

    const refused = await cli(['entry', 'delete', e.entryId, '--project', 'entries'], as());
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('--yes');
    expect((await cliJson(['entry', 'get', e.entryId, '--project', 'entries'], as())).entryId).toBe(e.entryId);

    const del = await cliJson(['entry', 'delete', e.entryId, '--project', 'entries', '--yes'], as());
    expect(del).toMatchObject({ entryId: e.entryId, deletedAt: expect.any(String) });
    const gone = await cli(['entry', 'get', e.entryId, '--project', 'entries'], as());
    expect(gone.exitCode).toBe(1);
    expect(gone.stdout).toBe('');
    expect(gone.stderr).toMatch(/^error: .+ \(not_found\)\n$/);
    emails = emails.filter((x) => x !== e.email);
  });
});

describe('entry export', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitlist-export-'));
  const total = () => emails.length;

  it('streams json, ndjson and csv to stdout', async () => {
    const json = await cli(['entry', 'export', '--project', 'entries', '--format', 'json'], as());
    expect(json.exitCode).toBe(0);
    const arr = JSON.parse(json.stdout);
    expect(arr).toHaveLength(total());
    expect(new Set(arr.map((e: { email: string }) => e.email))).toEqual(new Set(emails));
    expect(json.stderr).toBe(''); // stderr is not a terminal: no progress, no chatter

    const nd = await cli(['entry', 'export', '--project', 'entries', '--format', 'ndjson'], as());
    const lines = nd.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(total());

    const csv = await cli(['entry', 'export', '--project', 'entries', '--format', 'csv'], as());
    const rows = csv.stdout.trimEnd().split('\n');
    expect(rows[0]).toBe(
      '"entryId","email","name","source","metadata","ip","country","userAgent","createdAt","updatedAt","status","position","referralCode","referredBy","referrals","confirmedAt","invitedAt","acceptedAt"',
    );
    expect(rows).toHaveLength(total() + 1);

    const dflt = await cli(['entry', 'export', '--project', 'entries'], as());
    expect(JSON.parse(dflt.stdout)).toHaveLength(total());
  });

  it('writes --output files in every format (format from --format or the extension)', async () => {
    for (const [file, args, check] of [
      ['a.json', ['--format', 'json'], (s: string) => expect(JSON.parse(s)).toHaveLength(total())],
      [
        'b.ndjson',
        [],
        (s: string) =>
          expect(
            s
              .trimEnd()
              .split('\n')
              .map((l) => JSON.parse(l)),
          ).toHaveLength(total()),
      ],
      ['c.csv', [], (s: string) => expect(s.trimEnd().split('\n')).toHaveLength(total() + 1)],
      ['d.txt', ['--format', 'csv', '--search', 'sub-2'], (s: string) => expect(s.startsWith('"entryId","email"')).toBe(true)],
    ] as const) {
      const path = join(dir, file);
      const r = await cli(['entry', 'export', '--project', 'entries', '--output', path, ...args], as());
      expect(r.exitCode, file).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`to ${path}`);
      check(readFileSync(path, 'utf8'));
    }
  });

  it('counts entries, not lines, when a CSV cell holds a newline or quotes', async () => {
    const [first] = await cliJson(['entry', 'list', '--project', 'entries', '--limit', '1'], as());
    const r0 = await cli(['entry', 'update', first.entryId, '--project', 'entries', '--name', 'Line one\nline "two"\nthree'], as());
    expect(r0.exitCode).toBe(0);
    for (const format of ['csv', 'json', 'ndjson']) {
      const path = join(dir, `count.${format}`);
      const r = await cli(['entry', 'export', '--project', 'entries', '--format', format, '--output', path], as());
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain(`Exported ${total()} entries`);
    }
  });

  it('a server error creates no file and exits 1; a bad --format exits 2', async () => {
    const path = join(dir, 'missing.csv');
    const r = await cli(['entry', 'export', '--project', 'no-such-project', '--output', path], as());
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('(not_found)');
    expect(existsSync(path)).toBe(false);
    const bad = await cli(['entry', 'export', '--project', 'entries', '--format', 'xml'], as());
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
  });
});

describe('entry export --json', () => {
  it('--json is the json format, after the command or before it; --json with another --format is a usage error', async () => {
    for (const args of [
      ['entry', 'export', '--project', 'entries', '--json'],
      ['--json', 'entry', 'export', '--project', 'entries'],
      ['entry', 'export', '--project', 'entries', '--json', '--format', 'json'],
    ]) {
      const r = await cli(args, as());
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout), args.join(' ')).toHaveLength(emails.length);
    }
    // --json wins over the extension of --output, like --format json would
    const dir = mkdtempSync(join(tmpdir(), 'waitlist-export-json-'));
    const file = join(dir, 'x.csv');
    expect((await cli(['entry', 'export', '--project', 'entries', '--json', '--output', file], as())).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveLength(emails.length);
    for (const format of ['csv', 'ndjson']) {
      const r = await cli(['entry', 'export', '--project', 'entries', '--json', '--format', format], as());
      expect(r).toEqual({
        exitCode: 2,
        stdout: '',
        stderr: `error: --json and --format ${format} disagree: --json means --format json; give one of them\n`,
      });
    }
  });
});

describe('entry export --output', () => {
  it('`-o -` is stdout (no file named -); a directory or an uncreatable path says so plainly', async () => {
    const dash = join(process.cwd(), '-');
    try {
      const r = await cli(['entry', 'export', '--project', 'entries', '-o', '-'], as());
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toHaveLength(emails.length);
      expect(existsSync(dash)).toBe(false);
      const csv = await cli(['entry', 'export', '--project', 'entries', '--output', '-', '--format', 'csv'], as());
      expect(csv.stdout.startsWith('"entryId","email"')).toBe(true);
    } finally {
      rmSync(dash, { force: true });
    }
    const dir = mkdtempSync(join(tmpdir(), 'waitlist-export-dir-'));
    const isDir = await cli(['entry', 'export', '--project', 'entries', '-o', dir], as());
    expect(isDir).toEqual({
      exitCode: 2,
      stdout: '',
      stderr: `error: --output ${dir} is a directory: give a file name, e.g. --output ${join(dir, 'subscribers.csv')}\n`,
    });
    expect(statSync(dir).isDirectory()).toBe(true); // untouched
    const nowhere = join(dir, 'no-such-dir', 'x.csv');
    const r = await cli(['entry', 'export', '--project', 'entries', '-o', nowhere], as());
    expect(r).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: `error: cannot write ${nowhere}: ENOENT: no such file or directory, open '${nowhere}'\n`,
    });
  });
});
