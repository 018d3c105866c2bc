// `waitlist project settings` flags of the sign-up surface: set, shown, bad values name their flag.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanup, startServer, type TestServer } from '../helpers/server.js';
import { cli, cliJson, cliSignup, freshHome } from './cli.js';

let srv: TestServer;
let home: string;
beforeAll(async () => {
  srv = await startServer();
  home = freshHome();
  await cliSignup(srv.url, home);
  await cliJson(['project', 'create', '--name', 'Surface', '--slug', 'surface'], { home });
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

it('sets the hosted page, redirect, fields and captcha; [] and --no-… undo them', async () => {
  const file = join(home, 'fields.json');
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
    { home },
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
    { home },
  );
  expect(undone).toMatchObject({ hostedPage: true, redirectUrl: null, fields: [], pageTitle: null });
});

it('bad values: exit 2 naming the flag, nothing changed', async () => {
  const r = await cli(['project', 'settings', 'surface', '--fields', '[{"key":"x","label":"X","type":"date"}]'], { home });
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toContain('--fields');
  const d = await cli(['project', 'settings', 'surface', '--captcha-difficulty', '10'], { home });
  expect(d.exitCode).toBe(2);
  expect(d.stderr).toContain('--captcha-difficulty');
});
