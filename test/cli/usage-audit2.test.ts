// Usage errors and help found by the second CLI audit
// (notes/audit-cli2.md), checked by running `node bin/waitlist.js` as a process: the exit code, stdout and
// stderr a script sees.
import { describe, expect, it } from 'vitest';
import { cliProcess } from './cli.js';

describe('waitlist help <group> <sub> (finding 5)', () => {
  it('is the same as <group> <sub> --help; an unknown subcommand exits 2', async () => {
    for (const words of [
      ['entry', 'import'],
      ['webhook', 'deliveries'],
      ['key', 'create'],
      ['admin', 'project', 'restore'],
    ]) {
      const [help, flag] = await Promise.all([cliProcess(['help', ...words]), cliProcess([...words, '--help'])]);
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toContain(`Usage: waitlist ${words.join(' ')} [options]`);
      expect(help).toEqual(flag);
    }
    const group = await cliProcess(['help', 'entry']);
    expect(group.exitCode).toBe(0);
    expect(group.stdout).toContain('Usage: waitlist entry [options] [command]');
    const unknown = await cliProcess(['help', 'entry', 'nope']);
    expect(unknown.exitCode).toBe(2);
  });
});

describe('admin --database-url that is not PostgreSQL (finding 6)', () => {
  it('is a usage error naming the flag, or DATABASE_URL when it came from there; the password is not shown', async () => {
    const flag = await cliProcess(['admin', 'project', 'restore', 'prj_x', '--database-url', 'mysql://u:secret-pw@x/db']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stdout).toBe('');
    expect(flag.stderr).toMatch(/^error: --database-url must be a PostgreSQL URL/);
    expect(flag.stderr).not.toContain('secret-pw');
    const env = await cliProcess(['admin', 'user', 'add', '--email', 'ops@example.com', '--password-stdin'], {
      env: { DATABASE_URL: 'mysql://x/db' },
      input: 'correct horse battery',
    });
    expect(env.exitCode).toBe(2);
    expect(env.stderr).toMatch(/^error: DATABASE_URL .*must be a PostgreSQL URL.*'mysql:\/\/x\/db'/);
  });
});

describe('serve: on/off variables with a value that is neither (inventory audit)', () => {
  it.each([
    ['WAITLIST_OPEN_SIGNUP', 'maybe'],
    ['WAITLIST_ALLOW_PRIVATE_WEBHOOKS', 'maybe'],
    ['WAITLIST_RATE_LIMIT', 'of'],
    ['WAITLIST_LOG', 'request'],
  ])('%s=%s stops the server before it starts: exit 2, naming the variable', async (name, value) => {
    const r = await cliProcess(['serve', '--port', '0', '--db', ':memory:'], { env: { [name]: value } });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: ${name} must be .*not '${value}'`));
  });

  it('a bad value does not break --help or the client commands', async () => {
    const help = await cliProcess(['serve', '--help'], { env: { WAITLIST_RATE_LIMIT: 'of' } });
    expect(help.exitCode).toBe(0);
    // The help wraps at 80 columns: the default is read from the flag's lines joined.
    const mailFrom = help.stdout
      .slice(help.stdout.indexOf('--mail-from <from>'))
      .split(/\n\s{2}--/)[0]!
      .replace(/\s+/g, ' ');
    expect(mailFrom).toContain('(default: "waitlist@localhost")');
  });

  it('WAITLIST_SHUTDOWN_GRACE, an environment-only setting, is not called a flag', async () => {
    const r = await cliProcess(['serve', '--port', '0', '--db', ':memory:'], { env: { WAITLIST_SHUTDOWN_GRACE: '61' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe("error: WAITLIST_SHUTDOWN_GRACE must be a number of seconds from 0 to 60, not '61'\n");
  });
});
