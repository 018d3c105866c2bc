// The interactive side, on a real pseudo-terminal (util-linux `script`): prompts for email and
// password, the delete confirmation (no → nothing changed, yes → deleted), tables and the export
// progress bar on stderr.
import { execa } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, useServer } from '../helpers/server.js';
import { cliJson, freshHome } from './cli.js';

const hasScript = existsSync('/usr/bin/script');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs `waitlist <args>` on a pty; answers each prompt (regex on the output so far) with its text. */
async function onTty(home: string, args: string[], answers: [RegExp, string][] = [], redirect = '') {
  const cmd = ['node', BIN, ...args].map(quote).join(' ') + redirect;
  const p = execa('script', ['-qefc', cmd, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', HOME: home, XDG_CONFIG_HOME: join(home, '.config'), TERM: 'xterm', NO_COLOR: '1' },
    extendEnv: false,
    reject: false,
    buffer: false,
    timeout: 20_000,
  });
  let all = '';
  let seen = '';
  let next = 0;
  p.stdout!.on('data', (c: Buffer) => {
    seen += c.toString();
    all += c.toString();
    const a = answers[next];
    if (a && a[0].test(seen)) {
      next++;
      seen = '';
      p.stdin!.write(a[1]);
    }
  });
  const r = await p;
  return { exitCode: r.exitCode, answered: next, output: all };
}

let home: string;

const srv = useServer();
beforeAll(async () => {
  home = freshHome();
});

describe.runIf(hasScript)('on a terminal', () => {
  it('signup prompts for email and password (twice), then whoami works', async () => {
    const r = await onTty(
      home,
      ['signup', '--server', srv.url],
      [
        [/Email:/, 'tty@example.com\r'],
        [/Password:/, 'a long password\r'],
        [/Repeat password:/, 'a long password\r'],
      ],
    );
    expect(r.answered).toBe(3);
    expect(r.exitCode).toBe(0);
    expect((await cliJson(['whoami'], { home })).email).toBe('tty@example.com');
  });

  it('Ctrl-C at a prompt ends with one error: line and exit 1', async () => {
    const r = await onTty(freshHome(), ['login', '--server', srv.url, '--email', 'x@example.com'], [[/Password:/, '\x03']]);
    expect(r.answered).toBe(1);
    expect(r.exitCode).toBe(1);
    expect(r.output).toMatch(/\nerror: cancelled\r?\n/);
  });

  it('delete asks: "no" changes nothing, "yes" deletes', async () => {
    const p = await cliJson(['project', 'create', '--name', 'Ask Me', '--slug', 'ask-me'], { home });
    const no = await onTty(home, ['project', 'delete', 'ask-me'], [[/Delete project Ask Me \(ask-me\)\?/, 'n\r']]);
    expect(no.answered).toBe(1);
    expect(no.exitCode).toBe(1);
    expect(await cliJson(['project', 'get', 'ask-me'], { home })).toEqual(p);

    const yes = await onTty(home, ['project', 'delete', 'ask-me'], [[/Delete project/, 'y\r']]);
    expect(yes.exitCode).toBe(0);
    const list = await cliJson(['project', 'list'], { home });
    expect(list.find((x: { slug: string }) => x.slug === 'ask-me')).toBeUndefined();
  });

  it('lists are tables on a terminal', async () => {
    await cliJson(['project', 'create', '--name', 'Tabled', '--slug', 'tabled'], { home });
    const r = await onTty(home, ['project', 'list']);
    expect(r.exitCode).toBe(0);
    expect(r.output).toMatch(/┌─+┬/);
    expect(r.output).toMatch(/│ PROJECT ID +│ NAME +│ SLUG +│ CREATED +│/);
  });

  it('the operator password prompt draws on the terminal (stderr) while stdout goes to a file', async () => {
    const out = join(home, 'admin-out.txt');
    const r = await onTty(
      home,
      ['admin', 'user', 'add', '--email', 'tty-op@example.com', '--db', srv.dbFile],
      [
        [/Password:/, 'operator password\r'],
        [/Repeat password:/, 'operator password\r'],
      ],
      ` > ${quote(out)}`,
    );
    expect(r.answered).toBe(2);
    expect(r.exitCode).toBe(0);
    expect(readFileSync(out, 'utf8')).toMatch(/^Created user tty-op@example\.com \(usr_\w+\) in \//);
    expect(readFileSync(out, 'utf8')).not.toContain('Password');
  });

  it('export to a file draws progress on the terminal and writes only data to the file', async () => {
    await cliJson(['project', 'create', '--name', 'Progress', '--slug', 'progress'], { home });
    const file = join(home, 'out.ndjson');
    const r = await onTty(home, ['entry', 'export', '--project', 'progress', '--output', file]);
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('Exporting 0 entries');
    expect(r.output).toContain(`Exported 0 entries (0 B) to ${file}`);
    expect(readFileSync(file, 'utf8')).toBe('');
  });
});
