// The lifecycle from the CLI: key kinds, entry list --status/--sort, entry invite (--next, --dry-run,
// ids), and the lifecycle flags of project settings; --json everywhere.
import { beforeAll, describe, expect, it } from 'vitest';
import { Client, postJoin } from '../helpers/server.js';
import { useCliUser, cli, cliJson, seedEntries } from './cli.js';

let key: string;
const P = ['--project', 'launch'];

const user = useCliUser({}, { name: 'Launch', slug: 'launch' });
const { srv, as } = user;
beforeAll(async () => {
  key = (await cliJson(['key', 'create', ...P, '--name', 'site'], as())).key;
  await seedEntries(srv.url, 'launch', key, 6, 'q');
});

describe('lifecycle CLI', () => {
  it('key create --kind secret makes a wl_sk_ key; a bad kind is a usage error', async () => {
    const k = await cliJson(['key', 'create', ...P, '--name', 'backend', '--kind', 'secret'], as());
    expect(k.key.startsWith('wl_sk_')).toBe(true);
    expect(k.kind).toBe('secret');
    expect(key.startsWith('wl_pk_')).toBe(true);
    const bad = await cli(['key', 'create', ...P, '--name', 'x', '--kind', 'root'], as());
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stdout).toBe('');
  });

  it('settings flags change the lifecycle settings', async () => {
    const s = await cliJson(
      [
        'project',
        'settings',
        'launch',
        '--referral-boost',
        '3',
        '--public-leaderboard',
        '--invite-ttl-days',
        '30',
        '--invite-url',
        'https://app.example.com/signup?invite={code}',
        '--pending-purge-days',
        '3',
      ],
      as(),
    );
    expect(s).toMatchObject({
      referralBoost: 3,
      publicLeaderboard: true,
      inviteTtlDays: 30,
      inviteUrl: 'https://app.example.com/signup?invite={code}',
      pendingPurgeDays: 3,
    });
    const s2 = await cliJson(
      ['project', 'settings', 'launch', '--no-invite-url', '--no-public-leaderboard', '--referral-boost', '0'],
      as(),
    );
    expect(s2).toMatchObject({ inviteUrl: null, publicLeaderboard: false, referralBoost: 0 });
    const bad = await cli(['project', 'settings', 'launch', '--referral-boost', '5000'], as());
    expect(bad.exitCode).toBe(2);
    const smtp = await cli(['project', 'settings', 'launch', '--double-opt-in'], as());
    expect(smtp.exitCode).not.toBe(0);
    expect(smtp.stderr).toMatch(/SMTP|smtp/);
  });

  it('entry invite --next N --dry-run lists, --next N invites in queue order, ids invite those; list --status/--sort', async () => {
    const queue = await cliJson(['entry', 'list', ...P, '--status', 'waiting', '--sort', 'position'], as());
    expect(queue.map((e: { position: number }) => e.position)).toEqual([1, 2, 3, 4, 5, 6]);
    const dry = await cliJson(['entry', 'invite', ...P, '--next', '2', '--dry-run'], as());
    expect(dry.map((e: { entryId: string }) => e.entryId)).toEqual([queue[0].entryId, queue[1].entryId]);
    expect((await cliJson(['entry', 'list', ...P, '--status', 'invited'], as())).length).toBe(0);
    const inv = await cliJson(['entry', 'invite', ...P, '--next', '2'], as());
    expect(inv.map((e: { entryId: string }) => e.entryId)).toEqual([queue[0].entryId, queue[1].entryId]);
    expect(inv[0].inviteCode.length).toBeGreaterThanOrEqual(22);
    const one = await cliJson(['entry', 'invite', queue[5].entryId, ...P], as());
    expect(one).toHaveLength(1);
    const invited = await cliJson(['entry', 'list', ...P, '--status', 'invited'], as());
    expect(invited.map((e: { entryId: string }) => e.entryId).sort()).toEqual(
      [queue[0].entryId, queue[1].entryId, queue[5].entryId].sort(),
    );
    const rest = await cliJson(['entry', 'list', ...P, '--sort', 'position'], as());
    expect(rest.map((e: { entryId: string }) => e.entryId)).toEqual([queue[2].entryId, queue[3].entryId, queue[4].entryId]);
    const usage = await cli(['entry', 'invite', ...P], as());
    expect(usage.exitCode).toBe(2);
    const table = await cli(['entry', 'list', ...P, '--status', 'waiting'], as());
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toContain('waiting');
    // the invited code redeems with a secret key
    const secret = (await cliJson(['key', 'create', ...P, '--name', 'srv', '--kind', 'secret'], as())).key;
    const r = await new Client(srv.url).post(
      '/v1/waitlist/launch/invites/redeem',
      { code: inv[0].inviteCode },
      { authorization: `Bearer ${secret}` },
    );
    expect(r.status).toBe(200);
    expect((await postJoin(srv.url, 'launch', key, { email: 'late@example.com' })).status).toBe(201);
  });
});
