// `waitlist admin user add|reset-password` and `admin project restore`, run as processes on the
// database of a running server, checked through the server's HTTP API.
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, fails, ok } from '../helpers/api.js';
import { Client, postJoin, projectWithKey, signedUp, useServer } from '../helpers/server.js';

let owner: Client;

const srv = useServer();
beforeAll(async () => {
  owner = await signedUp(srv.url);
});

const login = (email: string, password: string) => new Client(srv.url).post('/api/auth/login', { email, password });

describe('admin user add', () => {
  it('creates an account while sign-up is closed; it can log in', async () => {
    fails(await new Client(srv.url).post('/api/auth/signup', { email: 'ops@example.com', password: 'ops password' }), 403, 'signup_closed');
    const r = await admin(srv, ['user', 'add', '--email', 'ops@example.com', '--password-stdin'], 'ops password\n');
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stdout).toContain('ops@example.com');
    const u = ok(await login('ops@example.com', 'ops password'));
    expect(u.userId).toMatch(/^usr_/);
  });

  it('--name is stored', async () => {
    const r = await admin(srv, ['user', 'add', '--email', 'named@example.com', '--name', 'Named Op', '--password-stdin'], 'named password');
    expect(r.exitCode, r.all).toBe(0);
    expect(ok(await login('named@example.com', 'named password')).name).toBe('Named Op');
  });

  it('a duplicate email fails with a non-zero exit and leaves the password alone', async () => {
    const r = await admin(srv, ['user', 'add', '--email', 'OPS@example.com', '--password-stdin'], 'another password');
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/exist|taken/i);
    ok(await login('ops@example.com', 'ops password'));
  });

  it.each([
    [['--email', 'not-an-email'], 'long enough password'],
    [['--email', 'short@example.com'], 'short'],
  ])('invalid input %j → usage error, no account', async (args, pw) => {
    const r = await admin(srv, ['user', 'add', ...args, '--password-stdin'], pw);
    expect(r.exitCode).toBe(2);
    expect((await login(args[1]!, pw)).status).not.toBe(200);
  });
});

describe('admin user reset-password', () => {
  it('sets a new password and ends every session of the user', async () => {
    expect((await admin(srv, ['user', 'add', '--email', 'reset@example.com', '--password-stdin'], 'old password')).exitCode).toBe(0);
    const c = new Client(srv.url);
    ok(await c.post('/api/auth/login', { email: 'reset@example.com', password: 'old password' }));
    ok(await c.get('/api/auth/me'));
    const r = await admin(srv, ['user', 'reset-password', '--email', 'reset@example.com', '--password-stdin'], 'new password');
    expect(r.exitCode, r.all).toBe(0);
    fails(await c.get('/api/auth/me'), 401, 'unauthorized');
    fails(await login('reset@example.com', 'old password'), 401, 'unauthorized');
    ok(await login('reset@example.com', 'new password'));
    ok(await owner.get('/api/auth/me')); // other users keep their sessions
  });

  it('an unknown email fails with a non-zero exit', async () => {
    const r = await admin(srv, ['user', 'reset-password', '--email', 'nobody@example.com', '--password-stdin'], 'whatever pw');
    expect(r.exitCode).not.toBe(0);
    expect(r.stdout).toBe('');
  });

  it('a too-short new password is refused and the old one still works', async () => {
    const r = await admin(srv, ['user', 'reset-password', '--email', 'ops@example.com', '--password-stdin'], 'short');
    expect(r.exitCode).toBe(2);
    ok(await login('ops@example.com', 'ops password'));
  });
});

describe('admin project restore', () => {
  it('brings a soft-deleted project back with its keys and entries', async () => {
    const P = await projectWithKey(owner, 'Restore Me');
    const e1 = ok(await postJoin(srv.url, P.slug, P.key, { email: 'keep1@example.com', name: 'Keep' }), 201).entryId;
    ok(await postJoin(srv.url, P.slug, P.key, { email: 'keep2@example.com' }), 201);
    ok(await owner.del(`/api/project/${P.projectId}`));
    fails(await owner.get(`/api/project/${P.projectId}`), 404, 'not_found');
    fails(await postJoin(srv.url, P.slug, P.key, { email: 'during@example.com' }), 404, 'not_found');

    const r = await admin(srv, ['project', 'restore', P.projectId]);
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stdout).toContain(P.projectId);

    const p = ok(await owner.get(`/api/project/${P.projectId}`));
    expect(p).toMatchObject({ projectId: P.projectId, slug: P.slug, name: 'Restore Me' });
    const list = ok(await owner.get(`/api/project/${P.projectId}/waitlist`));
    expect(list.total).toBe(2);
    expect(ok(await owner.get(`/api/project/${P.projectId}/waitlist/${e1}`)).name).toBe('Keep');
    ok(await owner.get(`/api/project/${P.projectId}/apikey/${P.keyId}`));
    ok(await postJoin(srv.url, P.slug, P.key, { email: 'after@example.com' }), 201);
    fails(await postJoin(srv.url, P.slug, P.key, { email: 'keep1@example.com' }), 409, 'email_taken');
    expect(ok(await owner.get('/api/project')).items.map((x: any) => x.projectId)).toContain(P.projectId);
  });

  it('a key revoked before the delete stays revoked after the restore', async () => {
    const P = await projectWithKey(owner, 'Restore Revoked');
    ok(await owner.del(`/api/project/${P.projectId}/apikey/${P.keyId}`));
    ok(await owner.del(`/api/project/${P.projectId}`));
    expect((await admin(srv, ['project', 'restore', P.projectId])).exitCode).toBe(0);
    fails(await postJoin(srv.url, P.slug, P.key, { email: 'x@example.com' }), 401, 'unauthorized');
    fails(await owner.get(`/api/project/${P.projectId}/apikey/${P.keyId}`), 404, 'not_found');
  });

  it('an unknown project id → non-zero exit', async () => {
    const r = await admin(srv, ['project', 'restore', 'prj_01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/not found/i);
  });

  it('restoring a live project is harmless', async () => {
    const P = await projectWithKey(owner, 'Already Live');
    expect((await admin(srv, ['project', 'restore', P.projectId])).exitCode).toBe(0);
    ok(await owner.get(`/api/project/${P.projectId}`));
  });

  it('honours --db over WAITLIST_DB', async () => {
    const P = await projectWithKey(owner, 'Flag Db');
    ok(await owner.del(`/api/project/${P.projectId}`));
    if (!srv.dbEnv.WAITLIST_DB) return; // PostgreSQL run
    const { execa } = await import('execa');
    const { BIN } = await import('../helpers/server.js');
    const r = await execa('node', [BIN, 'admin', 'project', 'restore', P.projectId, '--db', srv.dbFile], {
      env: { WAITLIST_DB: '/nonexistent/dir/x.db', DATABASE_URL: '' },
      reject: false,
      all: true,
    });
    expect(r.exitCode, r.all).toBe(0);
    ok(await owner.get(`/api/project/${P.projectId}`));
  });
});
