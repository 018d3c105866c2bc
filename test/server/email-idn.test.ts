// Internationalised addresses (docs/api.md, "Email addresses"): IDN domains and UTF-8 local parts are accepted;
// one address written two ways (Unicode or punycode domain, NFC or decomposed, any case) is one
// address for duplicate detection and log-in. On SQLite and PostgreSQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { fails, ok } from '../helpers/api.js';
import { Client, postJoin, projectWithKey, signedUp, useServer } from '../helpers/server.js';

let owner: Client;
let P: Awaited<ReturnType<typeof projectWithKey>>;

const srv = useServer({ args: ['--open-signup'] });
beforeAll(async () => {
  owner = await signedUp(srv.url);
  P = await projectWithKey(owner, 'International');
});

const join = (email: string) => postJoin(srv.url, P.slug, P.key, { email });

describe('join with internationalised addresses', () => {
  it('an IDN domain is accepted; its punycode form and other cases are the same address (409)', async () => {
    const r = ok(await join('user@müller.de'), 201);
    expect(r.email).toBe('user@müller.de'); // stored and echoed as sent
    fails(await join('user@xn--mller-kva.de'), 409, 'email_taken');
    fails(await join('USER@MÜLLER.DE'), 409, 'email_taken');
    fails(await join('  user@mu\u0308ller.de '), 409, 'email_taken'); // decomposed ü
    // and the other way round: punycode first
    ok(await join('ops@xn--bcher-kva.example'), 201);
    fails(await join('ops@bücher.example'), 409, 'email_taken');
  });

  it('a UTF-8 local part is accepted, compared case-insensitively and in NFC', async () => {
    const r = ok(await join('zoë@example.de'), 201);
    expect(r.email).toBe('zoë@example.de');
    fails(await join('ZOË@example.de'), 409, 'email_taken');
    fails(await join('zoe\u0308@example.de'), 409, 'email_taken');
    ok(await join('zoe@example.de'), 201); // a different address
    ok(await join('用户@例子.广告'), 201);
    ok(await join('δοκιμή@παράδειγμα.δοκιμή'), 201);
  });

  it('still refuses what is not an address, naming the field', async () => {
    for (const email of [
      'zoë@',
      'a b@müller.de',
      '😀@example.com',
      'a\u200b@example.com',
      'user@müller',
      '"quoted"@example.com',
      'a..b@müller.de',
    ]) {
      const r = await join(email);
      fails(r, 400, 'validation_failed');
      expect(r.body.error.issues[0], email).toEqual({ path: 'email', message: 'Invalid email address' });
    }
  });

  it('the entry list finds them by the Unicode text', async () => {
    const list = ok(await owner.get(`/api/project/${P.projectId}/waitlist?search=${encodeURIComponent('müller')}`));
    expect(list.items.map((e: { email: string }) => e.email)).toEqual(['user@müller.de']);
  });
});

describe('accounts with internationalised addresses', () => {
  it('signs up with an IDN domain and logs in with its punycode form; a second sign-up is email_taken', async () => {
    const c = new Client(srv.url);
    ok(await c.post('/api/auth/signup', { email: 'admin@bücher.example', password: 'a long password' }), 201);
    const u = ok(await new Client(srv.url).post('/api/auth/login', { email: 'ADMIN@xn--bcher-kva.example', password: 'a long password' }));
    expect(u.email).toBe('admin@bücher.example');
    fails(
      await new Client(srv.url).post('/api/auth/signup', { email: 'admin@xn--bcher-kva.example', password: 'a long password' }),
      409,
      'email_taken',
    );
  });
});
