// Plain HTML form posts to the join route, the hosted page /w/:slug and the proof-of-work captcha,
// over HTTP against the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fails, issuePaths, ok } from '../helpers/api.js';
import { Client, cleanup, postJoin, projectWithKey, signedUp, startServer, type TestServer } from '../helpers/server.js';
import { type Challenge, postForm, solve } from '../surface/helpers.js';

let srv: TestServer;
let owner: Client;
type PK = Awaited<ReturnType<typeof projectWithKey>>;
let A: PK;
let B: PK;

beforeAll(async () => {
  srv = await startServer();
  owner = await signedUp(srv.url);
  A = await projectWithKey(owner, 'Forms A');
  B = await projectWithKey(owner, 'Forms B');
  ok(
    await owner.put(`/api/project/${A.projectId}/settings`, {
      fields: [
        { key: 'role', label: 'Your role', type: 'select', options: ['dev', 'pm'] },
        { key: 'beta', label: 'Beta', type: 'checkbox' },
      ],
    }),
  );
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

const entryByEmail = async (p: PK, email: string) =>
  ok(await owner.get(`/api/project/${p.projectId}/waitlist?search=${encodeURIComponent(email)}`)).items[0];

describe('plain form posts to the join route', () => {
  const url = () => `${srv.url}/v1/waitlist/${A.slug}/join`;

  it('joins with the key in a field and 303s to the hosted page when no redirectUrl is set', async () => {
    const r = await postForm(url(), {
      key: A.key,
      email: 'form1@example.com',
      name: 'Ann',
      'fields.role': 'pm',
      'fields.beta': 'on',
      source: '',
    });
    expect(r.status).toBe(303);
    // The subscriber's own status page (its token is in the link), where position and share link show.
    expect(r.location).toMatch(new RegExp(`^/w/${A.slug}/status\\?token=[\\w-]{20,}$`));
    const e = await entryByEmail(A, 'form1@example.com');
    expect(e).toMatchObject({ name: 'Ann', source: 'landing-page', fields: { role: 'pm', beta: true } });
  });

  it('the Authorization header works for forms too', async () => {
    const r = await postForm(url(), { email: 'form2@example.com' }, { authorization: `Bearer ${A.key}` });
    expect(r.status).toBe(303);
  });

  it('errors come back as ?error=<code>: invalid, duplicate, bad key, unknown field', async () => {
    expect((await postForm(url(), { key: A.key, email: 'nope' })).location).toBe(`/w/${A.slug}?error=validation_failed`);
    expect((await postForm(url(), { key: A.key, email: 'form1@example.com' })).location).toBe(`/w/${A.slug}?error=email_taken`);
    expect((await postForm(url(), { key: 'wl_bogus', email: 'x@example.com' })).location).toBe(`/w/${A.slug}?error=unauthorized`);
    expect((await postForm(url(), { key: B.key, email: 'x@example.com' })).location).toBe(`/w/${A.slug}?error=unauthorized`);
    expect((await postForm(url(), { key: A.key, email: 'y@example.com', 'fields.zzz': '1' })).location).toBe(
      `/w/${A.slug}?error=validation_failed`,
    );
  });

  it('redirectUrl gets ?status=joined or ?error= appended (keeping its own query)', async () => {
    ok(await owner.put(`/api/project/${B.projectId}/settings`, { redirectUrl: 'https://example.com/thanks?from=wl#top' }));
    const u = `${srv.url}/v1/waitlist/${B.slug}/join`;
    expect((await postForm(u, { key: B.key, email: 'b1@example.com' })).location).toBe(
      'https://example.com/thanks?from=wl&status=joined#top',
    );
    expect((await postForm(u, { key: B.key, email: 'b1@example.com' })).location).toBe(
      'https://example.com/thanks?from=wl&error=email_taken#top',
    );
  });

  it('an unknown slug answers the 404 envelope; JSON requests still get JSON', async () => {
    const r = await postForm(`${srv.url}/v1/waitlist/no-such-list/join`, { key: A.key, email: 'z@example.com' });
    expect(r.status).toBe(404);
    expect(JSON.parse(r.text).error.code).toBe('not_found');
    ok(await postJoin(srv.url, A.slug, A.key, { email: 'json@example.com', fields: { role: 'dev' } }), 201);
    fails(await postJoin(srv.url, A.slug, A.key, 'email=a@b.co', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
  });
});

describe('hosted page', () => {
  it('renders the project with its title, description, fields and ?ref=, self-contained', async () => {
    ok(
      await owner.put(`/api/project/${A.projectId}/settings`, {
        pageTitle: 'Get early access <now>',
        pageDescription: 'We launch soon & you can be first.',
      }),
    );
    const r = await fetch(`${srv.url}/w/${A.slug}?ref=abcDEF123`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await r.text();
    expect(page).toContain('<h1>Get early access &#60;now&#62;</h1>');
    expect(page).toContain('We launch soon &#38; you can be first.');
    expect(page).toContain('<label for="f-email">');
    expect(page).toContain('name="fields.role"');
    expect(page).toContain('<option>pm</option>');
    expect(page).toContain('<input type="hidden" name="ref" value="abcDEF123">');
    expect(page).toContain('name="viewport"');
    expect(page).not.toMatch(/(src|href)="https?:/);
    expect(page).toContain('<link rel="icon" href="data:,">'); // no request for /favicon.ico (a 404 in the console)
  });

  it('?status=joined (a plain form elsewhere, after its join) names no address', async () => {
    const joined = await new Client(srv.url).get(`/w/${A.slug}?status=joined`);
    expect(joined.text).toContain('You have joined the waitlist.');
    expect(joined.text).not.toContain('Your email');
  });

  it('a plain form post joins without a key and answers with a page; errors re-render the form', async () => {
    const good = await postForm(`${srv.url}/w/${A.slug}`, { email: 'hosted1@example.com', 'fields.role': 'dev' });
    expect(good.status).toBe(200);
    expect(good.text).toContain('You are on the list!');
    expect(good.text).toContain('hosted1@example.com');
    expect(good.text).toMatch(/<p class="big">#\d+<\/p>/); // the position
    expect(good.text).toMatch(/Share your link to move up:<\/p><p class="code"><a href="[^"]*\/w\/forms-a\?ref=/);
    expect(await entryByEmail(A, 'hosted1@example.com')).toMatchObject({ fields: { role: 'dev' }, source: 'landing-page' });
    // Its private status page is linked once, and works.
    const statusHref = /<a href="(\/w\/forms-a\/status\?token=[^"]+)">your status page<\/a>/.exec(good.text)?.[1];
    expect(statusHref).toBeDefined();
    const statusPage = await fetch(`${srv.url}${statusHref!.replaceAll('&#38;', '&')}`);
    expect(statusPage.status).toBe(200);
    expect(await statusPage.text()).toContain('hosted1@example.com');
    const dup = await postForm(`${srv.url}/w/${A.slug}`, { email: 'hosted1@example.com' });
    expect(dup.status).toBe(409);
    expect(dup.text).toContain('already on the waitlist');
    const bad = await postForm(`${srv.url}/w/${A.slug}`, { email: 'bad', 'fields.role': 'ceo', name: 'Keep <me>' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('aria-invalid="true" aria-describedby="f-email-err"');
    expect(bad.text).toContain('id="fld-role-err"');
    expect(bad.text).toContain('value="Keep &#60;me&#62;"');
    expect(bad.text).toContain('role="alert"');
  });

  it('?status=joined and ?error= (from form redirects) are shown', async () => {
    expect(await (await fetch(`${srv.url}/w/${A.slug}?status=joined`)).text()).toContain('You are on the list!');
    expect(await (await fetch(`${srv.url}/w/${A.slug}?error=email_taken`)).text()).toContain('already on the waitlist');
    // The redirect carries the code only: no field to point at, so no "highlighted fields".
    const invalid = await (await fetch(`${srv.url}/w/${A.slug}?error=validation_failed`)).text();
    expect(invalid).toContain('Some of the details you sent were not accepted');
    expect(invalid).not.toContain('highlighted');
  });

  it('custom fields keyed like the built-in inputs (email, name, hp) get ids of their own: every id unique, every label bound', async () => {
    const F = await projectWithKey(owner, 'Forms Ids');
    ok(
      await owner.put(`/api/project/${F.projectId}/settings`, {
        honeypotField: 'website',
        fields: [
          { key: 'email', label: 'Work email', type: 'text' },
          { key: 'name', label: 'Team name', type: 'text', required: true },
          { key: 'hp', label: 'Horsepower', type: 'number' },
        ],
      }),
    );
    const page = await postForm(`${srv.url}/w/${F.slug}`, { email: 'bad' });
    const ids = [...page.text.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(6);
    expect(new Set(ids).size).toBe(ids.length);
    for (const m of page.text.matchAll(/<label[^>]* for="([^"]+)"/g)) expect(ids).toContain(m[1]);
    expect(page.text).toContain('<label for="fld-email">Work email</label>');
    expect(page.text).toContain('aria-describedby="fld-name-err"');
  });

  it('hostedPage off → 404, unknown slug → 404', async () => {
    ok(await owner.put(`/api/project/${B.projectId}/settings`, { hostedPage: false }));
    fails(await new Client(srv.url).get(`/w/${B.slug}`), 404, 'not_found');
    fails(await new Client(srv.url).get('/w/nothing-here'), 404, 'not_found');
    expect((await postForm(`${srv.url}/w/${B.slug}`, { email: 'x@example.com' })).status).toBe(404);
  });

  it('hostedPage off and no redirectUrl: a plain form post still lands on a page saying how it went', async () => {
    const E = await projectWithKey(owner, 'Forms Off');
    ok(await owner.put(`/api/project/${E.projectId}/settings`, { hostedPage: false }));
    const bad = await postForm(`${srv.url}/v1/waitlist/${E.slug}/join`, { key: E.key, email: 'nope' });
    expect(bad.location).toBe(`/w/${E.slug}?error=validation_failed`);
    const page = await new Client(srv.url).get(bad.location!);
    expect(page.status).toBe(200); // as with the hosted page on
    const On = await projectWithKey(owner, 'Forms On');
    expect((await new Client(srv.url).get(`/w/${On.slug}?error=validation_failed`)).status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('did not go through');
    const joined = await new Client(srv.url).get(`/w/${E.slug}?status=joined`);
    expect(joined.status).toBe(200);
    expect(joined.text).toContain('You are on the waitlist');
    fails(await new Client(srv.url).get(`/w/${E.slug}`), 404, 'not_found'); // the form itself stays off
  });
});

describe('proof-of-work captcha', () => {
  let C: PK;
  let D: PK;
  const challenge = async (p: PK): Promise<Challenge> =>
    ok(await new Client(srv.url).get(`/v1/waitlist/${p.slug}/challenge`, { authorization: `Bearer ${p.key}` }));

  beforeAll(async () => {
    C = await projectWithKey(owner, 'Captcha C');
    D = await projectWithKey(owner, 'Captcha D');
    for (const p of [C, D]) ok(await owner.put(`/api/project/${p.projectId}/settings`, { captcha: 'pow', captchaDifficulty: 1000 }));
  });

  it('the challenge route needs the project key and answers an ALTCHA challenge with CORS', async () => {
    fails(await new Client(srv.url).get(`/v1/waitlist/${C.slug}/challenge`), 401, 'unauthorized');
    fails(await new Client(srv.url).get(`/v1/waitlist/${C.slug}/challenge`, { authorization: `Bearer ${D.key}` }), 401, 'unauthorized');
    const r = await new Client(srv.url).get(`/v1/waitlist/${C.slug}/challenge`, {
      authorization: `Bearer ${C.key}`,
      origin: 'https://site.example',
    });
    const c = ok(r);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(c).toMatchObject({ algorithm: 'SHA-256', maxnumber: 1000 });
    expect(c.challenge).toMatch(/^[0-9a-f]{64}$/);
    expect(c.salt).toContain(`project=${C.projectId}`);
    expect(c.salt).toMatch(/expires=\d+/);
  });

  it('a join needs a solved challenge, once, for this project', async () => {
    expect(issuePaths(await postJoin(srv.url, C.slug, C.key, { email: 'pow0@example.com' }))).toEqual(['altcha']);
    const altcha = solve(await challenge(C));
    ok(await postJoin(srv.url, C.slug, C.key, { email: 'pow1@example.com', altcha }), 201);
    const replay = await postJoin(srv.url, C.slug, C.key, { email: 'pow2@example.com', altcha });
    expect(issuePaths(replay)).toEqual(['altcha']);
    expect(replay.body.error.issues[0].message).toMatch(/already used/);
    const other = await postJoin(srv.url, C.slug, C.key, { email: 'pow3@example.com', altcha: solve(await challenge(D)) });
    expect(other.body.error.issues[0].message).toMatch(/another waitlist/);
  });

  it('the hosted page posted without JavaScript (no solution) says so in words, not with the API route', async () => {
    const page = await postForm(`${srv.url}/w/${C.slug}`, { email: 'nojs@example.com' });
    expect(page.status).toBe(400);
    expect(page.text).toContain('Bot check: it runs in your browser and needs JavaScript.');
    expect(page.text).not.toContain('/v1/waitlist/');
    // No field is highlighted, so the banner does not say there is one.
    expect(page.text).toContain('The bot check did not pass: please try again.');
    expect(page.text).not.toContain('highlighted fields');
  });

  it('20 concurrent joins with one solution: exactly one 201', async () => {
    const altcha = solve(await challenge(C));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => postJoin(srv.url, C.slug, C.key, { email: `race${i}@example.com`, altcha })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
  });

  it('forged, wrong, tampered and garbage payloads → 400 naming altcha', async () => {
    const c = await challenge(C);
    const good = JSON.parse(Buffer.from(solve(c), 'base64').toString());
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64');
    const cases = [
      'not base64 at all!!',
      enc({ ...good, number: good.number + 1 }),
      enc({ ...good, signature: '0'.repeat(64) }),
      enc({ ...good, salt: good.salt.replace(/expires=\d+/, 'expires=9999999999') }),
      enc({ ...good, algorithm: 'SHA-1' }),
      enc([1, 2]),
    ];
    for (const altcha of cases)
      expect(issuePaths(await postJoin(srv.url, C.slug, C.key, { email: 'forged@example.com', altcha }))).toEqual(['altcha']);
  });

  it('an expired challenge is refused', async () => {
    // A challenge signed by the server but already past its expiry cannot be made over HTTP quickly;
    // the expiry check runs before the signature check, so a past `expires` is reported as expired.
    const c = await challenge(C);
    const good = JSON.parse(Buffer.from(solve(c), 'base64').toString());
    const past = { ...good, salt: good.salt.replace(/expires=\d+/, 'expires=1000') };
    const r = await postJoin(srv.url, C.slug, C.key, {
      email: 'late@example.com',
      altcha: Buffer.from(JSON.stringify(past)).toString('base64'),
    });
    expect(r.body.error.issues[0].message).toMatch(/expired/);
  });

  it('a used solution stays used after a restart', async () => {
    const altcha = solve(await challenge(C));
    ok(await postJoin(srv.url, C.slug, C.key, { email: 'restart1@example.com', altcha }), 201);
    await srv.stop();
    srv = await startServer({ reuse: srv });
    expect(issuePaths(await postJoin(srv.url, C.slug, C.key, { email: 'restart2@example.com', altcha }))).toEqual(['altcha']);
  });

  it('the hosted page gets its challenge without a key and joins with it', async () => {
    const c: Challenge = ok(await new Client(srv.url).get(`/w/${C.slug}/challenge`));
    const page = await postForm(`${srv.url}/w/${C.slug}`, { email: 'powpage@example.com', altcha: solve(c) });
    expect(page.status).toBe(200);
    const none = await postForm(`${srv.url}/w/${C.slug}`, { email: 'powpage2@example.com' });
    expect(none.status).toBe(400);
    expect(none.text).toContain('Bot check');
  });
});
