// GET /auth/status: public, tells the dashboard whether sign-up is open and whether any account
// exists (a brand-new server opens on "Create the first account"); rate limited per IP.
import { describe, expect, it } from 'vitest';
import { fails, ok } from '../helpers/api.js';
import { Client, signedUp, serversForFile } from '../helpers/server.js';

const serve = serversForFile();

describe('GET /auth/status', () => {
  it('fresh server: sign-up open, no account; after the first: closed; no session needed, nothing else leaked', async () => {
    const srv = await serve();
    const anon = new Client(srv.url);
    const fresh = ok(await anon.get('/auth/status'));
    expect(fresh).toEqual({ signupOpen: true, hasUsers: false, signedIn: false });
    const owner = await signedUp(srv.url);
    expect(ok(await anon.get('/auth/status'))).toEqual({ signupOpen: false, hasUsers: true, signedIn: false });
    expect(ok(await owner.get('/auth/status'))).toEqual({ signupOpen: false, hasUsers: true, signedIn: true });
    fails(await anon.post('/auth/status', {}), 404, 'not_found');
    ok(await owner.post('/api/auth/logout'));
    expect(ok(await owner.get('/auth/status'))).toMatchObject({ signedIn: false });
  });

  it('with --open-signup: open although accounts exist', async () => {
    const srv = await serve({ args: ['--open-signup'] });
    await signedUp(srv.url);
    expect(ok(await new Client(srv.url).get('/auth/status'))).toEqual({ signupOpen: true, hasUsers: true, signedIn: false });
  });

  it('is rate limited per IP (429 with Retry-After)', async () => {
    const srv = await serve({ env: { WAITLIST_RATE_LIMIT: 'on' } });
    const anon = new Client(srv.url);
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push((await anon.get('/auth/status')).status);
    expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
    const last = await anon.get('/auth/status');
    fails(last, 429, 'rate_limited');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
