// `waitlist project settings`: show, change each protection, and the effect on the join route.
import { describe, expect, it } from 'vitest';
import { postJoin, uniqueEmail } from '../helpers/server.js';
import { SETTINGS_DEFAULTS } from '../helpers/api.js';
import { useCliUser, cli, cliJson } from './cli.js';

const user = useCliUser({}, { name: 'Guarded', slug: 'guarded' });
const { srv, as } = user;

describe('project settings', () => {
  it('shows the defaults without flags', async () => {
    expect(await cliJson(['project', 'settings', 'guarded'], as())).toEqual(SETTINGS_DEFAULTS);
  });

  it('changes only the settings named, and the join route follows them', async () => {
    const set = await cliJson(
      [
        'project',
        'settings',
        'guarded',
        '--allowed-origins',
        'https://example.com, https://www.example.com',
        '--block-disposable',
        '--honeypot-field',
        'website',
      ],
      as(),
    );
    expect(set).toEqual({
      ...SETTINGS_DEFAULTS,
      allowedOrigins: ['https://example.com', 'https://www.example.com'],
      blockDisposableEmails: true,
      honeypotField: 'website',
    });
    const key = (await cliJson(['key', 'create', '--project', 'guarded', '--name', 'web'], as())).key as string;
    expect((await postJoin(srv.url, 'guarded', key, { email: 'someone@mailinator.com' })).status).toBe(400);
    const trap = await postJoin(srv.url, 'guarded', key, { email: uniqueEmail('bot'), website: 'http://spam' });
    expect(trap.status).toBe(201);
    const ok = await postJoin(srv.url, 'guarded', key, { email: uniqueEmail() }, { origin: 'https://example.com' });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://example.com');
    const entries = await cliJson(['entry', 'list', '--project', 'guarded'], as());
    expect(entries).toHaveLength(1); // the honeypot join was not stored

    const back = await cliJson(['project', 'settings', 'guarded', '--any-origin', '--no-block-disposable', '--no-honeypot-field'], as());
    expect(back).toEqual(SETTINGS_DEFAULTS);
  });

  it('rejects bad values as usage errors naming the flag, and conflicting flags', async () => {
    const bad = await cli(['project', 'settings', 'guarded', '--allowed-origins', 'example.com/path'], as());
    expect(bad.exitCode).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--allowed-origins: An origin is/);
    const both = await cli(['project', 'settings', 'guarded', '--allowed-origins', 'https://a.com', '--any-origin'], as());
    expect(both.exitCode).toBe(2);
    const missing = await cli(['project', 'settings', 'no-such-project'], as());
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/not_found/);
  });
});
