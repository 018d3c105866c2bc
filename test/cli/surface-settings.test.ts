// `waitlist project settings` flags of the sign-up surface: set, shown, bad values name their flag.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { useCliUser, cli, cliJson } from './cli.js';

const user = useCliUser({}, { name: 'Surface', slug: 'surface' });
const { as } = user;

it('sets the hosted page, redirect, fields and captcha; [] and --no-… undo them', async () => {
  const file = join(user.home, 'fields.json');
  writeFileSync(file, JSON.stringify([{ key: 'role', label: 'Role', type: 'select', options: ['dev', 'pm'] }]));
  const s = await cliJson(
    [
      'project',
      'settings',
      'surface',
      '--page-title',
      'Join us',
      '--no-hosted-page',
      '--redirect-url',
      'https://example.com/ok',
      '--fields',
      `@${file}`,
      '--captcha',
      'pow',
      '--captcha-difficulty',
      '2000',
    ],
    as(),
  );
  expect(s).toMatchObject({
    pageTitle: 'Join us',
    hostedPage: false,
    redirectUrl: 'https://example.com/ok',
    captcha: 'pow',
    captchaDifficulty: 2000,
  });
  expect(s.fields).toEqual([{ key: 'role', label: 'Role', type: 'select', required: false, options: ['dev', 'pm'] }]);
  const undone = await cliJson(
    ['project', 'settings', 'surface', '--hosted-page', '--no-redirect-url', '--fields', '[]', '--page-title', ''],
    as(),
  );
  expect(undone).toMatchObject({ hostedPage: true, redirectUrl: null, fields: [], pageTitle: null });
});

it('bad values: exit 2 naming the flag, nothing changed', async () => {
  const r = await cli(['project', 'settings', 'surface', '--fields', '[{"key":"x","label":"X","type":"date"}]'], as());
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toContain('--fields');
  const d = await cli(['project', 'settings', 'surface', '--captcha-difficulty', '10'], as());
  expect(d.exitCode).toBe(2);
  expect(d.stderr).toContain('--captcha-difficulty');
});
