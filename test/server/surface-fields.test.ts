// Custom fields (project setting `fields`): definitions validated, join answers checked against them,
// stored on the entry, listed, exported (one CSV column each), and old entries unharmed when the
// definitions change. Over HTTP against the real server (SQLite, and PostgreSQL with TEST_DATABASE_URL).
import { beforeAll, describe, expect, it } from 'vitest';
import { surfaceSettingsDefaults } from '../../src/contract/settings-surface.js';
import { fails, issuePaths, ok } from '../helpers/api.js';
import { postJoin, projectWithKey, signedUp, type Client, useServer } from '../helpers/server.js';

let owner: Client;
let P: Awaited<ReturnType<typeof projectWithKey>>;

const FIELDS = [
  { key: 'company', label: 'Company', type: 'text', required: true },
  { key: 'seats', label: 'Seats', type: 'number', required: false },
  { key: 'role', label: 'Role', type: 'select', required: false, options: ['dev', 'pm', 'other'] },
  { key: 'beta', label: 'Join the beta', type: 'checkbox', required: false },
];

const srv = useServer();
beforeAll(async () => {
  owner = await signedUp(srv.url);
  P = await projectWithKey(owner, 'Fields');
});

const settings = (body: unknown) => owner.put(`/api/project/${P.projectId}/settings`, body);

describe('field definitions', () => {
  it('GET shows the surface defaults', async () => {
    const s = ok(await owner.get(`/api/project/${P.projectId}/settings`));
    expect(s).toMatchObject(surfaceSettingsDefaults); // their values: test/docs/settings-defaults.test.ts
  });

  it.each([
    [
      '10,000 options',
      [{ key: 'x', label: 'X', type: 'select', options: Array.from({ length: 10_000 }, (_, i) => `o${i}`) }],
      'fields.0.options',
    ],
    ['a select without options', [{ key: 'x', label: 'X', type: 'select' }], 'fields.0.options'],
    ['options on a text field', [{ key: 'x', label: 'X', type: 'text', options: ['a'] }], 'fields.0.options'],
    ['an unknown type', [{ key: 'x', label: 'X', type: 'date' }], 'fields.0.type'],
    ['a bad key', [{ key: '1 x', label: 'X', type: 'text' }], 'fields.0.key'],
    ['no label', [{ key: 'x', type: 'text' }], 'fields.0.label'],
    [
      'duplicate keys',
      [
        { key: 'x', label: 'X', type: 'text' },
        { key: 'x', label: 'Y', type: 'text' },
      ],
      'fields.1.key',
    ],
    ['21 fields', Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, label: 'L', type: 'text' })), 'fields'],
    ['an unknown property', [{ key: 'x', label: 'X', type: 'text', color: 'red' }], 'fields.0.color'],
  ])('refuses %s with 400 naming it', async (_name, fields, path) => {
    expect(issuePaths(await settings({ fields }))).toContain(path);
  });

  it('accepts good definitions (required defaults to false) and other surface settings', async () => {
    const s = ok(await settings({ fields: FIELDS, pageTitle: 'Join us', redirectUrl: 'https://example.com/thanks?x=1' }));
    expect(s.fields).toEqual(FIELDS);
    expect(s.pageTitle).toBe('Join us');
    expect(issuePaths(await settings({ redirectUrl: 'javascript:alert(1)' }))).toContain('redirectUrl');
    expect(issuePaths(await settings({ captcha: 'recaptcha' }))).toContain('captcha');
    expect(issuePaths(await settings({ captchaDifficulty: 5 }))).toContain('captchaDifficulty');
    ok(await settings({ redirectUrl: null }));
  });
});

describe('join with fields', () => {
  const join = (body: unknown) => postJoin(srv.url, P.slug, P.key, body);

  it('stores converted answers on the entry and lists them', async () => {
    const d = ok(await join({ email: 'f1@example.com', fields: { company: 'Acme', seats: 12, role: 'dev', beta: true } }), 201);
    expect(d.fields).toEqual({ company: 'Acme', seats: 12, role: 'dev', beta: true });
    const got = ok(await owner.get(`/api/project/${P.projectId}/waitlist/${d.entryId}`));
    expect(got.fields).toEqual({ company: 'Acme', seats: 12, role: 'dev', beta: true });
    const list = ok(await owner.get(`/api/project/${P.projectId}/waitlist`));
    expect(list.items.find((e: { entryId: string }) => e.entryId === d.entryId).fields.company).toBe('Acme');
  });

  it('a number field reads decimal text as a form sends it: 12, -1.5, .5, 1e3', async () => {
    for (const [text, n] of [
      ['12', 12],
      [' -1.5 ', -1.5],
      ['.5', 0.5],
      ['1e3', 1000],
    ] as const) {
      const d = ok(await join({ email: `num-${n}@example.com`, fields: { company: 'A', seats: text } }), 201);
      expect(d.fields.seats).toBe(n);
    }
  });

  it.each([
    ['an unknown field', { company: 'A', nope: 1 }, 'fields.nope'],
    ['a missing required field', { seats: 2 }, 'fields.company'],
    ['a blank required field', { company: '  ' }, 'fields.company'],
    ['a select value not among the options', { company: 'A', role: 'ceo' }, 'fields.role'],
    ['a non-number', { company: 'A', seats: 'many' }, 'fields.seats'],
    ['a hexadecimal number (text)', { company: 'A', seats: '0x10' }, 'fields.seats'],
    ['a binary number (text)', { company: 'A', seats: '0b11' }, 'fields.seats'],
    ['a non-boolean checkbox', { company: 'A', beta: 'maybe' }, 'fields.beta'],
  ])('400 for %s, naming it; nothing stored', async (_n, fields, path) => {
    const r = await join({ email: `bad-${path}@example.com`, fields });
    expect(issuePaths(r)).toContain(path);
    const list = ok(await owner.get(`/api/project/${P.projectId}/waitlist?search=bad-`));
    expect(list.total).toBe(0);
  });

  it('a bad email and bad custom fields are reported together on the JSON route; a form post gets validation_failed', async () => {
    expect(issuePaths(await join({ email: 'not-an-email', fields: { seats: 'many' } })).sort()).toEqual([
      'email',
      'fields.company',
      'fields.seats',
    ]);
    const form = await fetch(`${srv.url}/v1/waitlist/${P.slug}/join`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ key: P.key, email: 'not-an-email' }),
      redirect: 'manual',
    });
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toMatch(/error=validation_failed/);
  });

  it('fields must be an object', async () => {
    expect(issuePaths(await join({ email: 'x@example.com', fields: ['a'] }))).toContain('fields');
  });

  it('CSV export has one column per field; editing definitions keeps old answers', async () => {
    ok(await join({ email: 'f2@example.com', name: 'Bo', fields: { company: '=cmd()', seats: '3' } }), 201);
    const csv = await owner.get(`/api/project/${P.projectId}/waitlist/export?format=csv`);
    const [head, ...lines] = csv.text.trim().split('\n');
    // The entry's columns (the lifecycle's among them), then one per custom field.
    // Every cell is quoted (docs/security.md, CSV export).
    expect(head!.startsWith('"entryId","email","name","source","metadata","ip","country","userAgent","createdAt","updatedAt",')).toBe(true);
    expect(head!.endsWith(',"acceptedAt","fields.company","fields.seats","fields.role","fields.beta"')).toBe(true);
    const f2 = lines.find((l) => l.includes('f2@example.com'))!;
    expect(f2.endsWith(`,"'=cmd()","3","",""`)).toBe(true);
    // Drop `seats`, make `role` required with other options: stored entries still read as they were.
    ok(await settings({ fields: [FIELDS[0], { key: 'role', label: 'Role', type: 'select', required: true, options: ['x'] }] }));
    const list = ok(await owner.get(`/api/project/${P.projectId}/waitlist`));
    expect(list.items.find((e: { email: string }) => e.email === 'f1@example.com').fields).toEqual({
      company: 'Acme',
      seats: 12,
      role: 'dev',
      beta: true,
    });
    const nd = await owner.get(`/api/project/${P.projectId}/waitlist/export?format=ndjson`);
    expect(nd.status).toBe(200);
    expect(nd.text).toContain('"fields":{"company":"Acme","seats":12,"role":"dev","beta":true}');
    fails(await join({ email: 'f3@example.com', fields: { company: 'A' } }), 400, 'validation_failed');
  });
});
