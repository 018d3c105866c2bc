// `entry import` against servers that answer badly or drop the upload, from the second CLI audit
// (notes/audit-cli2.md), checked by running `node bin/waitlist.js` as a process: the exit code, stdout and
// stderr a script sees.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliProcess, freshHome } from './cli.js';

const home = freshHome();
const run = (args: string[], env: Record<string, string> = {}) => cliProcess(args, { home, env });

/** A fake server for one test: `handle` answers every request; the CLI reaches it with WAITLIST_SERVER/SESSION. */
async function fake(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server: Server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: { WAITLIST_SERVER: url, WAITLIST_SESSION: 'fake-session' },
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

describe('entry import: a 200 that is not the envelope is a bad response (finding 2)', () => {
  const file = () => {
    const f = join(home, 'two.csv');
    writeFileSync(f, 'email\nbad-response@example.com\n');
    return f;
  };
  const answers: [string, (res: ServerResponse) => void][] = [
    ['{}', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')],
    ['a success envelope without data', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"success"}')],
    ['not JSON', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('not json at all')],
    [
      'a cut-off body',
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
        res.write('{"status":"success","data":{"imp');
        setTimeout(() => res.socket?.destroy(), 50);
      },
    ],
  ];
  for (const [what, answer] of answers) {
    it(`${what}: exit 1, nothing on stdout, with and without --json`, async () => {
      const srv = await fake((req, res) => {
        req.resume();
        req.on('end', () => answer(res));
      });
      try {
        for (const json of [[], ['--json']]) {
          const r = await run(['entry', 'import', '--project', 'imp', '--file', file(), ...json], srv.env);
          expect(r).toEqual({
            exitCode: 1,
            stdout: '',
            stderr: `error: unexpected response from ${srv.url}/api/project/imp/import (bad_response)\n`,
          });
        }
      } finally {
        await srv.close();
      }
    });
  }
});

describe('entry import: the --import-timeout hint only when it applies (finding 3)', () => {
  const small = () => {
    const f = join(home, 'small.csv');
    writeFileSync(f, 'email,name\nsmall@example.com,Small\n');
    return f;
  };

  it('a connection reset right away: the network error with its code, no hint', async () => {
    const srv = await fake((req) => req.socket.destroy());
    try {
      const r = await run(['entry', 'import', '--project', 'imp', '--file', small()], srv.env);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^error: cannot reach the server at ${srv.url} \\((ECONNRESET|UND_ERR_SOCKET|EPIPE)\\)\\n$`));
    } finally {
      await srv.close();
    }
  });

  it('a server that is gone: ECONNREFUSED, no hint', async () => {
    const srv = await fake(() => {});
    await srv.close();
    const r = await run(['entry', 'import', '--project', 'imp', '--file', small()], srv.env);
    expect(r).toEqual({ exitCode: 1, stdout: '', stderr: `error: cannot reach the server at ${srv.url} (ECONNREFUSED)\n` });
  });

  it("the server's 408: the hint", async () => {
    const srv = await fake((_req, res) => res.writeHead(408, { connection: 'close' }).end());
    try {
      const r = await run(['entry', 'import', '--project', 'imp', '--file', small()], srv.env);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: 408 .*--import-timeout.*e\.g\. 7200/);
    } finally {
      await srv.close();
    }
  });

  it('an upload cut after more than a second, before the file was all sent: the hint, with what was sent', async () => {
    const big = join(home, 'big.csv');
    writeFileSync(big, `email\n${'x'.repeat(60)}@example.com\n`.repeat(400_000)); // ~30 MB, more than the socket buffers
    const srv = await fake((req) => {
      req.pause(); // reads nothing, like a server past its --import-timeout
      setTimeout(() => req.socket.destroy(), 1500);
    });
    try {
      const r = await run(['entry', 'import', '--project', 'imp', '--file', big], srv.env);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^error: cannot reach the server at \S+ \(\w+\): the connection was cut after \d+\.\d s, with .+ of .+ sent\. .*--import-timeout/,
      );
    } finally {
      await srv.close();
    }
  });
});
