// The README's quick start (issue 10, item 13), pasted whole: this test takes the first `sh` block under
// "## Quick start" from README.md and runs it, unchanged, in bash at the repository root with a free
// PORT. It must start its own server, wait for it, sign up, create a project and a key, join, list and
// export, and leave nothing behind in the repository (cookie jar and CSV go to a scratch directory).
import { execa } from 'execa';
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/server.js';

/** The first ```sh block after the heading `## Quick start`. */
function quickStartBlock(readme: string): string {
  const section = readme.split(/^## /m).find((s) => s.startsWith('Quick start\n'));
  const block = section && /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no ```sh block under "## Quick start"');
  return block;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const untracked = async () =>
  String((await execa('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ROOT })).stdout)
    .split('\n')
    .filter((l) => l.startsWith('??'));

describe('README quick start', () => {
  const logs = mkdtempSync(join(tmpdir(), 'waitlist-readme-'));
  let serverPid: number | undefined;
  let scratch: string | undefined;

  afterAll(() => {
    if (serverPid) {
      try {
        process.kill(serverPid, 'SIGTERM');
      } catch {}
    }
    rmSync(logs, { recursive: true, force: true });
    if (scratch?.startsWith(tmpdir())) rmSync(scratch, { recursive: true, force: true });
  });

  it('works when pasted whole into bash', async () => {
    const block = quickStartBlock(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    const before = await untracked();
    const port = await freePort();
    const out = join(logs, 'out.txt');
    const err = join(logs, 'err.txt');
    // -e: any failing command fails the test; the server is left running, as for a reader. Its output goes
    // to files, not pipes: the server keeps the inherited descriptors open after bash exits.
    const fds = [openSync(out, 'w'), openSync(err, 'w')] as const;
    const bash = spawn('bash', ['-e', '-o', 'pipefail', '-c', block], {
      cwd: ROOT,
      env: { ...process.env, PORT: String(port), WAITLIST_RATE_LIMIT: 'off', DATABASE_URL: '', WAITLIST_DB: '' },
      stdio: ['ignore', fds[0], fds[1]],
      timeout: 120_000,
    });
    const exitCode = await new Promise<number | null>((resolve) => bash.on('exit', (code) => resolve(code)));
    for (const fd of fds) closeSync(fd);
    const text = readFileSync(out, 'utf8');
    const stderr = readFileSync(err, 'utf8');
    serverPid = Number(/Stop the server with: kill (\d+)/.exec(text)?.[1]) || undefined;
    scratch = /Files in (\S+)\./.exec(text)?.[1];
    expect(exitCode, `${text}\n${stderr}`).toBe(0);
    expect(stderr).not.toMatch(/Error|curl: \(/);

    expect(text).toContain(`waitlist listening on http://127.0.0.1:${port}`);
    expect(text).toMatch(/"message":"Account created"/);
    expect(text).toMatch(/"message":"You are on the waitlist","data":\{"entryId":"ent_/);
    expect(text).toMatch(/"items":\[\{"entryId":"ent_[^"]+","email":"ada@example.com"/);
    expect(scratch && existsSync(join(scratch, 'jar'))).toBe(true);
    expect(readFileSync(join(scratch!, 'subscribers.csv'), 'utf8')).toMatch(/ada@example\.com/);
    expect(text).toContain(`Dashboard: http://127.0.0.1:${port}/`);

    // The server it started is still running (a reader goes on to the dashboard), and the repository is clean.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect(await untracked()).toEqual(before);
  });

  it('finds the block', () => {
    expect(quickStartBlock('# x\n## Quick start\ntext\n```sh\necho hi\n```\n## Next\n```sh\nno\n```\n')).toBe('echo hi\n');
    expect(() => quickStartBlock('# x\n## Other\n```sh\nno\n```\n')).toThrow(/no ```sh block/);
  });
});
