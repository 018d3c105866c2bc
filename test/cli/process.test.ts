// End-to-end as a process (`node bin/waitlist.js`): what only a real process shows — its exit status
// for usage errors (serve's flags included), not-logged-in and success, and that stdout stays empty.
import { describe, expect, it } from 'vitest';
import { useCliUser, cliProcess } from './cli.js';

const user = useCliUser();
const { as } = user;

describe('exit codes of the process', () => {
  it('bad values of serve exit 2 like every other bad flag, before anything starts', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['serve', '--port', 'x'], {}, /^error: --port must be an integer from 0 to 65535, not 'x'/],
      [['serve', '--port', '70000'], {}, /^error: --port must be an integer from 0 to 65535, not '70000'/],
      [['serve', '--join-limit', '0'], {}, /^error: --join-limit must be an integer from 1 to 1000000, not '0'/],
      [['serve', '--request-timeout', '1.5'], {}, /^error: --request-timeout must be an integer from 1 to 3600, not '1\.5'/],
      [
        ['serve'],
        { WAITLIST_IMPORT_TIMEOUT: '0' },
        /^error: --import-timeout must be an integer from 1 to 86400, not '0' \(flag or env var\)/,
      ],
      [['serve'], { PORT: 'abc' }, /^error: --port must be an integer from 0 to 65535, not 'abc' \(flag or env var\)/],
      [['serve'], { WAITLIST_JOIN_WINDOW: '-5' }, /^error: --join-window must be an integer from 1 to 86400, not '-5'/],
      [['serve', '--trust-proxy', 'not-an-ip'], {}, /--trust-proxy: not an IP address/],
      [['serve', '--pg-connect-timeout', 'x'], {}, /^error: --pg-connect-timeout must be a number of seconds from 0\.1 to 600, not 'x'/],
      [['serve', '--public-url', 'ftp://x'], {}, /^error: --public-url must be an http\(s\) URL.*not 'ftp:\/\/x'/],
      [
        ['serve', '--smtp-url', 'http://user:secret-pw@x'],
        {},
        /^error: --smtp-url must look like smtp:\/\/user:pass@host:587 or smtps:\/\/user:pass@host:465\n$/,
      ],
      [['serve', '--allowed-hosts', 'a/b'], {}, /^error: --allowed-hosts: not a host name or host:port: a\/b/],
      [['serve', '--mail-from', 'not an address'], {}, /^error: --mail-from must be an address or "Name <address>".*not 'not an address'/],
      [['serve'], { WAITLIST_MAIL_FROM: 'My app <>' }, /^error: --mail-from must be an address/],
      [['serve'], { WAITLIST_RETRY_SCHEDULE: 'x' }, /^error: WAITLIST_RETRY_SCHEDULE must be comma-separated seconds/],
      [['serve'], { WAITLIST_SHUTDOWN_GRACE: '61' }, /^error: WAITLIST_SHUTDOWN_GRACE must be a number of seconds from 0 to 60, not '61'/],
      [['entry', 'list', '--project', 'p', '--limit', 'x'], {}, /--limit <n>.*must be an integer from 1 to 100/],
    ];
    const results = await Promise.all(
      cases.map(([args, env]) => cliProcess(args, { home: user.home, env: { WAITLIST_DB: '/nonexistent/x.db', ...env } })),
    );
    results.forEach((r, i) => {
      const [args, , message] = cases[i]!;
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
      expect(r.stderr, args.join(' ')).toMatch(message);
    });
  });

  it('a group without its subcommand exits 2 with its usage; not logged in exits 4; success exits 0', async () => {
    const [entry, loggedOut, logout, ok] = await Promise.all([
      cliProcess(['entry'], as()),
      cliProcess(['project', 'list']),
      cliProcess(['logout']),
      cliProcess(['project', 'list', '--json'], as()),
    ]);
    expect(entry.exitCode).toBe(2);
    expect(entry.stdout).toBe('');
    expect(entry.stderr).toContain('Usage: waitlist entry [options] [command]');
    expect(loggedOut.exitCode).toBe(4);
    expect(loggedOut.stderr).toBe('error: not logged in: run `waitlist login` (or set WAITLIST_SESSION)\n');
    expect(logout).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual([]);
  });
});
