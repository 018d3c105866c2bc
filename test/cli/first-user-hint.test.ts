// The first-account hint of `waitlist serve` (issue 10, item 15): it must print a command that works in
// the user's shell. After `npm install && npm start` no `waitlist` is on the PATH, so the hint says
// `node bin/waitlist.js …`; that exact line, pasted, creates the account.
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { selfCommand } from '../../src/cli/self-command.js';
import { cleanup, ROOT, startServer, type TestServer } from '../helpers/server.js';
import { freshHome } from './cli.js';

describe('selfCommand', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitlist-self-'));
  const script = join(dir, 'pkg', 'bin', 'waitlist.js');
  mkdirSync(join(dir, 'pkg', 'bin'), { recursive: true });
  writeFileSync(script, '');
  const globalBin = join(dir, 'global-bin');
  const npmBin = join(dir, 'pkg', 'node_modules', '.bin');
  const otherBin = join(dir, 'other-bin');
  for (const d of [globalBin, npmBin, otherBin]) mkdirSync(d, { recursive: true });
  symlinkSync(script, join(globalBin, 'waitlist'));
  symlinkSync(script, join(npmBin, 'waitlist'));
  writeFileSync(join(otherBin, 'waitlist'), ''); // another program of that name

  it('is `waitlist` only when that name on PATH is this very script (npm i -g, npm link)', () => {
    expect(selfCommand({ script, env: { PATH: globalBin }, cwd: dir })).toBe('waitlist');
    expect(selfCommand({ script, env: { PATH: otherBin }, cwd: join(dir, 'pkg') })).toBe('node bin/waitlist.js');
  });

  it('ignores node_modules/.bin, which npm puts on the PATH of its child only', () => {
    expect(selfCommand({ script, env: { PATH: npmBin, npm_command: 'exec' }, cwd: dir })).toBe('npx waitlist');
  });

  it('after npm start: node and the path from where the user typed it (INIT_CWD)', () => {
    const env = { PATH: npmBin, npm_command: 'start', INIT_CWD: join(dir, 'pkg') };
    expect(selfCommand({ script, env, cwd: join(dir, 'pkg') })).toBe('node bin/waitlist.js');
    expect(selfCommand({ script, env: { ...env, INIT_CWD: dir }, cwd: join(dir, 'pkg') })).toBe('node pkg/bin/waitlist.js');
  });
});

describe('waitlist serve on an empty database', () => {
  let srv: TestServer;
  afterAll(() => srv && cleanup(srv));

  it('prints a first-account command that works when pasted in the same directory', async () => {
    // As under `npm start`: the user's shell is in the repository, and no `waitlist` is on the PATH.
    srv = await startServer({ env: { INIT_CWD: ROOT, npm_command: 'start', PATH: process.env.PATH ?? '' } });
    await expect.poll(() => srv.output(), { timeout: 10_000 }).toContain('No account yet');
    const line = /No account yet\. Create the first one with:\n {2}(.+)\n/.exec(srv.output())?.[1];
    expect(line).toBe(`node bin/waitlist.js signup --server ${srv.url}`);
    const home = freshHome();
    const r = await execa('bash', ['-c', `${line} --email first@example.com --password-stdin`], {
      cwd: ROOT,
      input: 'a long password',
      env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), WAITLIST_SERVER: '', WAITLIST_SESSION: '' },
      reject: false,
    });
    expect(r.stderr).not.toMatch(/command not found|error/i);
    expect(r.exitCode).toBe(0);
    const me = await fetch(`${srv.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'first@example.com', password: 'a long password' }),
    });
    expect(me.status).toBe(200);
  });
});
