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
