// Projects: create (slug derivation and rules), get, list, update (name only), soft delete.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertNoSecretsLeaked, fails, issuePaths, ok, ISO_RE } from '../helpers/api.js';
import { type Client, cleanup, postJoin, projectWithKey, signedUp } from '../helpers/server.js';
import { startApp, type InProcessServer } from '../helpers/app.js';

let srv: InProcessServer;
let owner: Client;
let other: Client;

beforeAll(async () => {
  srv = await startApp({ openSignup: true });
  [owner, other] = await Promise.all([signedUp(srv.url), signedUp(srv.url)]);
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

const SLUG_RE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const create = (c: Client, body: unknown) => c.post('/api/project', body);

function expectProject(p: any) {
  expect(Object.keys(p).sort()).toEqual(['createdAt', 'name', 'projectId', 'slug', 'updatedAt']);
  expect(p.projectId).toMatch(/^prj_[0-9A-Za-z]{10,}$/);
  expect(p.createdAt).toMatch(ISO_RE);
  expect(p.updatedAt).toMatch(ISO_RE);
  expect(p.slug).toMatch(SLUG_RE);
  expect(p.slug.length).toBeGreaterThanOrEqual(3);
  expect(p.slug.length).toBeLessThanOrEqual(48);
}

describe('create', () => {
  it('201 with the project; get returns the same', async () => {
    const p = ok(await create(owner, { name: 'Launch Plan', slug: 'launch-plan' }), 201);
    expectProject(p);
    expect(p).toMatchObject({ name: 'Launch Plan', slug: 'launch-plan' });
    expect(ok(await owner.get(`/api/project/${p.projectId}`))).toEqual(p);
  });

  it.each([
    ['Rocket Ship', /^rocket-ship$/],
    ['  Café Déjà Vu!  ', /^cafe-deja-vu$/],
    ['--Hello__World--', /^hello-world$/],
    ['ALL CAPS 2024', /^all-caps-2024$/],
    ['ab', /^ab-[a-z0-9]+$/],
    ['日本語のプロジェクト', /^[a-z0-9]+(-[a-z0-9]+)*$/],
    ['!!!', /^[a-z0-9]+(-[a-z0-9]+)*$/],
  ])('derives a valid slug from %j', async (name, re) => {
    const p = ok(await create(owner, { name }), 201);
    expectProject(p);
    expect(p.slug).toMatch(re);
    expect(p.name).toBe(name.trim());
  });

  it('a long name gives a slug of at most 48 chars that does not end with a hyphen', async () => {
    const p = ok(await create(owner, { name: `${'word '.repeat(19)}end` }), 201);
    expectProject(p);
  });

  it('a derived slug that is taken gets a suffix instead of failing', async () => {
    const a = ok(await create(owner, { name: 'Twin Peaks' }), 201);
    const b = ok(await create(other, { name: 'Twin Peaks' }), 201);
    expect(a.slug).toBe('twin-peaks');
    expect(b.slug).not.toBe('twin-peaks');
    expect(b.slug).toMatch(/^twin-peaks-/);
    expectProject(b);
  });

  it.each([['abc'], ['a1b2'], ['my-cool-app-2'], ['x'.repeat(48)], ['0-0']])('accepts the explicit slug %j', async (slug) => {
    expect(ok(await create(owner, { name: 'Explicit', slug }), 201).slug).toBe(slug);
  });

  it.each([
    ['ab', 'too short'],
    ['x'.repeat(49), 'too long'],
    ['Abc', 'upper case'],
    ['a--b', 'double hyphen'],
    ['-abc', 'leading hyphen'],
    ['abc-', 'trailing hyphen'],
    ['a_bc', 'underscore'],
    ['a bc', 'space'],
    ['über', 'non-ASCII'],
    ['', 'empty'],
  ])('rejects the slug %j (%s) → 400 at "slug"', async (slug) => {
    expect(issuePaths(await create(owner, { name: 'Bad slug', slug }))).toEqual(['slug']);
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'n'.repeat(101) }, 'name'],
    [{ name: 7 }, 'name'],
    [{ name: 'ok', slug: 5 }, 'slug'],
    [{ name: 'ok', owner: 'me' }, 'owner'],
    [{ name: 'ok', projectId: 'prj_x' }, 'projectId'],
  ])('rejects %j → 400 at "%s"', async (body, path) => {
    expect(issuePaths(await create(owner, body))).toContain(path);
  });

  it('accepts a 100-char name', async () => {
    ok(await create(owner, { name: 'n'.repeat(100) }), 201);
  });

  it('a taken slug → 409 slug_taken, for the same user and for another user', async () => {
    ok(await create(owner, { name: 'Taken', slug: 'taken-slug' }), 201);
    fails(await create(owner, { name: 'Again', slug: 'taken-slug' }), 409, 'slug_taken');
    fails(await create(other, { name: 'Again', slug: 'taken-slug' }), 409, 'slug_taken');
  });

  it('the slug of a soft-deleted project stays taken → 409 slug_taken', async () => {
    const p = ok(await create(owner, { name: 'Gone', slug: 'gone-slug' }), 201);
    ok(await owner.del(`/api/project/${p.projectId}`));
    fails(await create(owner, { name: 'Gone again', slug: 'gone-slug' }), 409, 'slug_taken');
    const derived = ok(await create(owner, { name: 'Gone Slug' }), 201);
    expect(derived.slug).not.toBe('gone-slug');
  });
});

describe('update', () => {
  let p: any;
  beforeAll(async () => {
    p = ok(await create(owner, { name: 'Before', slug: 'rename-me' }), 201);
  });

  it('renames; slug and createdAt stay, updatedAt moves', async () => {
    await new Promise((r) => setTimeout(r, 5));
    const u = ok(await owner.put(`/api/project/${p.projectId}`, { name: '  After  ' }));
    expectProject(u);
    expect(u).toMatchObject({ projectId: p.projectId, name: 'After', slug: 'rename-me', createdAt: p.createdAt });
    expect(Date.parse(u.updatedAt)).toBeGreaterThan(Date.parse(p.updatedAt));
    expect(ok(await owner.get(`/api/project/${p.projectId}`)).name).toBe('After');
  });

  it.each([
    [{ slug: 'new-slug' }, 'slug'],
    [{ name: 'x', slug: 'new-slug' }, 'slug'],
    [{ name: 'x', projectId: 'prj_1' }, 'projectId'],
    [{ name: 'x', createdAt: '2020-01-01T00:00:00.000Z' }, 'createdAt'],
    [{ name: 'x', color: 'red' }, 'color'],
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'n'.repeat(101) }, 'name'],
  ])('%j → 400 at "%s", nothing changed', async (body, path) => {
    expect(issuePaths(await owner.put(`/api/project/${p.projectId}`, body))).toContain(path);
    expect(ok(await owner.get(`/api/project/${p.projectId}`)).slug).toBe('rename-me');
  });

  it('the slug issue says it cannot be changed', async () => {
    const issues = fails(await owner.put(`/api/project/${p.projectId}`, { name: 'x', slug: 'other' }), 400, 'validation_failed');
    expect(issues).toEqual([{ path: 'slug', message: expect.stringMatching(/cannot be changed|immutable|read-only/i) }]);
  });

  it('the field that cannot be sent comes first; a missing name without a slug reads "Name is required"', async () => {
    const issues = fails(await owner.put(`/api/project/${p.projectId}`, { slug: 'other' }), 400, 'validation_failed');
    expect(issues.map((i: { path: string }) => i.path)).toEqual(['slug', 'name']);
    expect(issues[1]?.message).toBe('Name is required');
    expect(fails(await owner.put(`/api/project/${p.projectId}`, {}), 400, 'validation_failed')).toEqual([
      { path: 'name', message: 'Name is required' },
    ]);
  });

  it('an unknown project → 404', async () => {
    fails(await owner.put('/api/project/prj_01ARZ3NDEKTSV4RRFFQ69G5FAV', { name: 'x' }), 404, 'not_found');
  });
});

describe('list', () => {
  it('lists only own live projects, newest first, with the page shape', async () => {
    const c = await signedUp(srv.url);
    const made = [];
    for (const name of ['One', 'Two', 'Three']) made.push(ok(await create(c, { name: `List ${name}` }), 201));
    ok(await c.del(`/api/project/${made[1].projectId}`));
    const d = ok(await c.get('/api/project'));
    expect(Object.keys(d).sort()).toEqual(['items', 'limit', 'page', 'total', 'totalPages']);
    expect(d).toMatchObject({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(d.items.map((p: any) => p.projectId)).toEqual([made[2].projectId, made[0].projectId]);
    for (const p of d.items) expectProject(p);
  });
});

describe('soft delete', () => {
  it('200, then absent from get/list/update/delete and its keys and entries routes → 404; join → 404', async () => {
    const P = await projectWithKey(owner, 'Doomed');
    const j = ok(await postJoin(srv.url, P.slug, P.key, { email: 'kept@example.com' }), 201);
    const d = ok(await owner.del(`/api/project/${P.projectId}`));
    expect(d.projectId).toBe(P.projectId);
    expect(d.deletedAt).toMatch(ISO_RE);
    fails(await owner.get(`/api/project/${P.projectId}`), 404, 'not_found');
    fails(await owner.put(`/api/project/${P.projectId}`, { name: 'x' }), 404, 'not_found');
    fails(await owner.del(`/api/project/${P.projectId}`), 404, 'not_found');
    fails(await owner.get(`/api/project/${P.projectId}/apikey`), 404, 'not_found');
    fails(await owner.get(`/api/project/${P.projectId}/apikey/${P.keyId}`), 404, 'not_found');
    fails(await owner.post(`/api/project/${P.projectId}/apikey`, { name: 'k' }), 404, 'not_found');
    fails(await owner.get(`/api/project/${P.projectId}/waitlist`), 404, 'not_found');
    fails(await owner.get(`/api/project/${P.projectId}/waitlist/${j.entryId}`), 404, 'not_found');
    fails(await owner.get(`/api/project/${P.projectId}/waitlist/export`), 404, 'not_found');
    fails(await owner.get(`/api/project/${P.projectId}/stats`), 404, 'not_found');
    const list = ok(await owner.get('/api/project?limit=100'));
    expect(list.items.map((p: any) => p.projectId)).not.toContain(P.projectId);
    fails(await postJoin(srv.url, P.slug, P.key, { email: 'new@example.com' }), 404, 'not_found');
  });

  it('an unknown id → 404', async () => {
    fails(await owner.del('/api/project/prj_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'not_found');
    fails(await owner.get('/api/project/not-an-id'), 404, 'not_found');
  });
});

describe('no secrets', () => {
  it('no response held a full key or a bcrypt hash', () => {
    expect(assertNoSecretsLeaked().scanned).toBeGreaterThan(50);
  });
});
