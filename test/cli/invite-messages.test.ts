// `entry invite` messages from the second CLI audit, against a real server
// (notes/audit-cli2.md), checked by running `node bin/waitlist.js` as a process: the exit code, stdout and
// stderr a script sees.
import { describe, expect, it } from 'vitest';
import { Client, postJoin } from '../helpers/server.js';
import { cliJson, cliProcess, useCliUser } from './cli.js';

const user = useCliUser({}, { name: 'Audit Two', slug: 'audit-two' });
const P = ['--project', 'audit-two'];
const run = (args: string[], env: Record<string, string> = {}) => cliProcess(args, { home: user.home, env });

describe('entry invite messages (finding 7)', () => {
  it('one entry reads in the singular; a refused id is named as the argument', async () => {
    const secret = await cliJson(['key', 'create', ...P, '--name', 'backend', '--kind', 'secret'], user.as());
    const pub = await cliJson(['key', 'create', ...P, '--name', 'page'], user.as());
    expect((await postJoin(user.srv.url, 'audit-two', pub.key, { email: 'invite-one@example.com' })).status).toBe(201);
    const tty = { WAITLIST_FORCE_TTY: '1', NO_COLOR: '1' };
    const dry = await run(['entry', 'invite', ...P, '--next', '1', '--dry-run'], tty);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('Dry run: 1 entry would be invited; nothing changed');
    const real = await run(['entry', 'invite', ...P, '--next', '1'], tty);
    expect(real.exitCode, real.stderr).toBe(0);
    expect(real.stderr).toContain('Invited 1 entry (');

    const [invited] = (await cliJson(['entry', 'list', ...P, '--status', 'invited'], user.as())) as { entryId: string }[];
    const again = await cliJson(['entry', 'invite', invited!.entryId, ...P], user.as());
    const redeem = await new Client(user.srv.url).post(
      '/v1/waitlist/audit-two/invites/redeem',
      { code: again[0].inviteCode },
      { authorization: `Bearer ${secret.key}` },
    );
    expect(redeem.status).toBe(200);
    const refused = await run(['entry', 'invite', invited!.entryId, ...P]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`  entry 1 (${invited!.entryId}): `);
    expect(refused.stderr).not.toContain('entryIds.0');
  });
});
