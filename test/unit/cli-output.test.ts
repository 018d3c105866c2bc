// Formatting of CLI output (table | tsv | json) and the small parsers behind flags, without a process.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/contract/schemas.js';
import { sessionFromSetCookie } from '../../src/client/index.js';
import { projectColumns } from '../../src/cli/columns.js';
import { exportFormat } from '../../src/cli/commands/entry-run.js';
import { intValue, jsonObjectValue, PAGE_LIMIT_MAX, PAGE_MAX, SEARCH_CHARS_MAX, searchValue, serverUrl } from '../../src/cli/options.js';
import { humanBytes, Output, shortTime, tableCell, tsvRow, type OutputOptions } from '../../src/cli/output.js';

const project = {
  projectId: 'prj_01JD3X5W8E0Q4M2K7C9B6N1R2T',
  name: 'My App',
  slug: 'my-app',
  createdAt: '2026-11-21T19:56:42.123Z',
  updatedAt: '2026-11-21T19:56:42.123Z',
};

function capture(opts: OutputOptions) {
  let out = '';
  let err = '';
  const sink = (fn: (s: string) => void) =>
    new Writable({
      write(c, _e, done) {
        fn(String(c));
        done();
      },
    });
  const o = new Output(
    opts,
    sink((s) => (out += s)),
    sink((s) => (err += s)),
  );
  return { o, out: () => out, err: () => err };
}

describe('Output modes', () => {
  it('--json wins over a terminal and prints exactly the data', () => {
    const c = capture({ json: true, stdoutTty: true, stderrTty: true, noColor: false });
    c.o.list([project], projectColumns);
    expect(JSON.parse(c.out())).toEqual([project]);
    const d = capture({ json: true, stdoutTty: true });
    d.o.item(project);
    expect(JSON.parse(d.out())).toEqual(project);
  });

  it('TSV off a terminal: one header-less row per item, every column', () => {
    const c = capture({ stdoutTty: false, noColor: true });
    c.o.list([project, { ...project, name: 'Two\tTabs', slug: 'two' }], projectColumns);
    expect(c.out()).toBe(
      `${project.projectId}\tMy App\tmy-app\t${project.createdAt}\n${project.projectId}\tTwo\\tTabs\ttwo\t${project.createdAt}\n`,
    );
    const item = capture({ stdoutTty: false });
    item.o.item({ a: 1, b: null, c: { x: 'y' } });
    expect(item.out()).toBe('a\t1\nb\t\nc\t{"x":"y"}\n');
  });

  it('a table on a terminal, coloured unless NO_COLOR', () => {
    const plain = capture({ stdoutTty: true, noColor: true });
    plain.o.list([project], projectColumns);
    expect(plain.out()).toContain('│ PROJECT ID');
    expect(plain.out()).toContain('│ 2026-11-21 19:56 │');
    expect(plain.out()).not.toContain('\x1b[');
    const coloured = capture({ stdoutTty: true, noColor: false });
    coloured.o.list([project], projectColumns);
    expect(coloured.out()).toContain('\x1b[1mPROJECT ID\x1b[22m');
  });

  it('an empty list prints a hint on stderr in a table, nothing in TSV, [] in JSON', () => {
    const t = capture({ stdoutTty: true, noColor: true });
    t.o.list([], projectColumns, 'No projects yet');
    expect(t.out()).toBe('');
    expect(t.err()).toBe('No projects yet\n');
    const s = capture({ stdoutTty: false });
    s.o.list([], projectColumns);
    expect(s.out()).toBe('');
    const j = capture({ json: true });
    j.o.list([], projectColumns);
    expect(j.out()).toBe('[]\n');
  });

  it('messages go to stderr, coloured only when stderr is a terminal', () => {
    const c = capture({ stdoutTty: false, stderrTty: false });
    c.o.success('done');
    expect(c.out()).toBe('');
    expect(c.err()).toBe('✓ done\n');
    const t = capture({ stdoutTty: false, stderrTty: true, noColor: false });
    t.o.success('done');
    expect(t.err()).toContain('\x1b[32m✓');
  });
});

describe('cells', () => {
  it('escapes control characters so data cannot break rows or drive the terminal', () => {
    expect(tsvRow(['a\tb', 'c\nd', 'e\\f', '\x1b[31mred', null, 3])).toBe('a\\tb\tc\\nd\te\\\\f\t\\x1b[31mred\t\t3\n');
    expect(tableCell('x\x1b]0;pwned\x07y')).toBe('x\\x1b]0;pwned\\x07y');
    expect(tableCell('\u009b2J')).toBe('\\x9b2J');
    expect(tableCell('héllo ✓')).toBe('héllo ✓');
  });

  it('shortTime and humanBytes', () => {
    expect(shortTime('2026-11-21T19:56:42.123Z')).toBe('2026-11-21 19:56');
    expect(shortTime(null)).toBe('');
    expect(humanBytes(512)).toBe('512 B');
    expect(humanBytes(1536)).toBe('1.5 KiB');
    expect(humanBytes(5 * 1024 * 1024)).toBe('5.0 MiB');
  });
});

describe('flag parsers', () => {
  it('intValue accepts integers in range only', () => {
    const p = intValue(1, 100);
    expect(p('7')).toBe(7);
    for (const bad of ['0', '101', '1.5', 'x', '-1', '']) expect(() => p(bad), bad).toThrow(/integer from 1 to 100/);
  });

  it('jsonObjectValue accepts objects only', () => {
    expect(jsonObjectValue('{"plan":"pro"}')).toEqual({ plan: 'pro' });
    for (const bad of ['{nope', '[1]', 'null', '"s"', '3']) expect(() => jsonObjectValue(bad), bad).toThrow();
  });

  it('serverUrl wants http(s) and drops trailing slashes', () => {
    expect(serverUrl('https://w.example.com/')).toBe('https://w.example.com');
    expect(() => serverUrl('ftp://x')).toThrow();
    expect(() => serverUrl('localhost:8080x')).toThrow();
  });

  it('the page limit repeated for --help matches the contract', () => {
    expect(PAGE_LIMIT_MAX).toBe(LIMITS.pageLimitMax);
    expect(PAGE_MAX).toBe(LIMITS.pageMax);
    expect(SEARCH_CHARS_MAX).toBe(LIMITS.searchChars);
    expect(searchValue('x'.repeat(200))).toBe('x'.repeat(200));
    expect(() => searchValue('x'.repeat(201))).toThrow('must be at most 200 characters');
  });

  it('export format: --format, else the --output extension, else json', () => {
    expect(exportFormat('csv', 'x.json')).toBe('csv');
    expect(exportFormat(undefined, 'subs.CSV')).toBe('csv');
    expect(exportFormat(undefined, 'subs.jsonl')).toBe('ndjson');
    expect(exportFormat(undefined, 'subs.ndjson')).toBe('ndjson');
    expect(exportFormat(undefined, 'subs.txt')).toBe('json');
    expect(exportFormat(undefined, undefined)).toBe('json');
  });
});

describe('client', () => {
  it('reads the session token from Set-Cookie and ignores a cleared cookie', () => {
    expect(sessionFromSetCookie(['other=1; Path=/', 'waitlist_session=abc-_123; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax'])).toBe(
      'abc-_123',
    );
    expect(sessionFromSetCookie(['waitlist_session=; Max-Age=0; Path=/'])).toBeUndefined();
    expect(sessionFromSetCookie([])).toBeUndefined();
  });
});
