// POST /api/project/:projectId/import: hosted-tool exports (fixtures), this server's own CSV export,
// NDJSON, dry runs, duplicates, bad rows with line numbers, date formats, a 10 MB line, a file without
// an email column. Over HTTP against the real server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BATCH } from '../../src/core/import/run.js';
import { fails, issuePaths, ok } from '../helpers/api.js';
import { type Client, postJoin, projectWithKey, ROOT, signedUp, useServer } from '../helpers/server.js';

let owner: Client;
type PK = Awaited<ReturnType<typeof projectWithKey>>;

const FIX = join(ROOT, 'test/fixtures/import');
const fixture = (name: string) => readFileSync(join(FIX, name));

const srv = useServer({ args: ['--open-signup'] });
beforeAll(async () => {
  owner = await signedUp(srv.url);
});

async function upload(p: PK, body: string | Buffer, query = 'format=csv', type = 'text/csv') {
  const r = await fetch(`${srv.url}/api/project/${p.projectId}/import?${query}`, {
    method: 'POST',
    headers: { cookie: owner.cookie, 'content-type': type },
    body,
  });
  const text = await r.text();
  return { status: r.status, body: JSON.parse(text), text, headers: r.headers };
}
const all = async (p: PK) => ok(await owner.get(`/api/project/${p.projectId}/waitlist?limit=100`)).items as any[];
const byEmail = async (p: PK, email: string) => (await all(p)).find((e) => e.email === email);

describe('hosted-tool exports import without editing', () => {
  it('getwaitlist-style: BOM, first/last names, microsecond UTC dates, a duplicate, a bad email, a removed row, quotes', async () => {
    const p = await projectWithKey(owner, 'Import GW');
    const r = ok(await upload(p, fixture('getwaitlist-style.csv')));
    expect(r.invalid).toEqual([
      { line: 11, message: 'Invalid email "not-an-email"' },
      { line: 14, message: expect.stringMatching(/^Removed on the previous tool/) },
    ]);
    expect(r.duplicates).toBe(1); // line 7 repeats line 6 in capitals
    // The first line of a repeated email is kept (line 7 has an earlier date, and is still the repeat).
    const kept = (await all(p)).filter((e) => e.email.toLowerCase() === 'jurgen.torvalds4@example.com');
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ email: 'jurgen.torvalds4@example.com', name: 'Jürgen Torvalds' });
    expect(r.imported).toBe(40 - 1 - 2); // 40 rows after the header
    expect(r.invalidCount).toBe(2);
    const zoe = await byEmail(p, 'zoe.torvalds0@example.com');
    expect(zoe).toMatchObject({ name: 'Zoë Torvalds', source: 'import', createdAt: '2025-03-01T12:41:03.075Z' });
    expect(zoe.metadata).toMatchObject({ uuid: 'f2bf0de8-f2bf-40d1-ac2b-ea62f46b23d5', referral_token: '47D7E48325', verified: 'True' });
    expect((await byEmail(p, 'priya.dubois15@example.com')).name).toBe('Jean, "JJ" Dubois');
    expect(await byEmail(p, 'priya.dubois12@example.com')).toBeUndefined();
  });

  it('semicolon export: `;`, titles in words, DD/MM/YYYY settled by the file and reported, a quoted newline, no email on line 9', async () => {
    const p = await projectWithKey(owner, 'Import Semi');
    ok(
      await owner.put(`/api/project/${p.projectId}/settings`, {
        fields: [{ key: 'size', label: 'Company size', type: 'select', options: ['1', '2-10', '11-50', '51+'] }],
      }),
    );
    const r = ok(await upload(p, fixture('semicolon-export.csv')));
    expect(r.dateFormat).toBe('dmy');
    expect(r.invalid).toEqual([{ line: 9, message: 'No email' }]);
    expect(r.imported).toBe(29);
    const olu = await byEmail(p, 'okafor.0@example.org');
    expect(olu).toMatchObject({ name: 'Olu Okafor', source: 'producthunt', createdAt: '2025-03-15T08:02:00.000Z', fields: { size: '1' } });
    expect(olu.metadata).toMatchObject({ Position: '1', 'Email Verified': 'yes' });
    expect((await byEmail(p, 'kierkegaard.20@example.org')).name).toBe('Line one\nline two Kierkegaard');
  });
});

describe('round trip and formats', () => {
  it("this server's own CSV export imports as it was (fields, metadata, formula-escaped text, createdAt)", async () => {
    const a = await projectWithKey(owner, 'Export Src');
    const fields = [
      { key: 'role', label: 'Role', type: 'select', options: ['dev', 'pm'] },
      { key: 'n', label: 'N', type: 'number' },
    ];
    ok(await owner.put(`/api/project/${a.projectId}/settings`, { fields }));
    const joined = [
      {
        email: 'rt1@example.com',
        name: '=HYPERLINK("x")',
        source: 'tw',
        metadata: { plan: 'pro', deep: { a: [1, 2] } },
        fields: { role: 'dev', n: 2.5 },
      },
      { email: 'rt2@example.com', name: 'Plain, "quoted"\nnewline' },
    ];
    for (const j of joined) ok(await postJoin(srv.url, a.slug, a.key, j), 201);
    const csv = (await owner.get(`/api/project/${a.projectId}/waitlist/export?format=csv`)).text;
    const b = await projectWithKey(owner, 'Export Dst');
    ok(await owner.put(`/api/project/${b.projectId}/settings`, { fields }));
    const r = ok(await upload(b, csv));
    expect(r).toMatchObject({ imported: 2, duplicates: 0, invalid: [] });
    const before = await all(a);
    for (const e of before) {
      const after = await byEmail(b, e.email);
      // The export's queue columns (position, referralCode, referrals, …) are not kept: metadata is exactly as it was.
      expect(after.metadata).toEqual(e.metadata);
      expect(after).toMatchObject({
        name: e.name,
        source: e.source,
        fields: e.fields,
        createdAt: e.createdAt,
        ip: e.ip,
        userAgent: e.userAgent,
      });
    }
    // Again: everything is a duplicate now.
    expect(ok(await upload(b, csv))).toMatchObject({ imported: 0, duplicates: 2 });
  });

  it('NDJSON: objects a line, nested metadata and fields, bad lines reported', async () => {
    const p = await projectWithKey(owner, 'Import ND');
    const lines = [
      JSON.stringify({ email: 'nd1@example.com', name: 'N1', metadata: { a: 1 }, createdAt: '2024-01-02T03:04:05Z' }),
      '{not json',
      '',
      JSON.stringify({ email: 'nd2@example.com', status: 'waiting' }),
      JSON.stringify({ email: 'nd3@example.com', status: 'vip' }),
      '[1]',
    ].join('\n');
    const r = ok(await upload(p, lines, 'format=ndjson', 'application/x-ndjson'));
    expect(r.imported).toBe(2);
    expect(r.invalid.map((i: { line: number }) => i.line)).toEqual([2, 5, 6]);
    expect(await byEmail(p, 'nd1@example.com')).toMatchObject({ metadata: { a: 1 }, createdAt: '2024-01-02T03:04:05.000Z' });
  });

  it('imported rows queue after the entries already there, in createdAt order, and get referral codes', async () => {
    const p = await projectWithKey(owner, 'Import Queue');
    ok(await postJoin(srv.url, p.slug, p.key, { email: 'first@example.com' }), 201);
    const csv = 'email,created_at\nq3@example.com,2024-03-03\nq1@example.com,2024-01-01\nq2@example.com,2024-02-02\n';
    expect(ok(await upload(p, csv))).toMatchObject({ imported: 3 });
    const q = ok(await owner.get(`/api/project/${p.projectId}/waitlist?sort=position&status=waiting`)).items as any[];
    expect(q.map((e) => [e.email, e.position])).toEqual([
      ['first@example.com', 1],
      ['q1@example.com', 2],
      ['q2@example.com', 3],
      ['q3@example.com', 4],
    ]);
    expect(q[1]).toMatchObject({ status: 'waiting', referralCode: expect.stringMatching(/^\S{8,}$/) });
  });

  it('the newest-first list and the export order imported rows by their kept createdAt, beside live sign-ups', async () => {
    const p = await projectWithKey(owner, 'Import Newest');
    ok(await postJoin(srv.url, p.slug, p.key, { email: 'live@example.com' }), 201);
    // Same-day rows keep the file's order (the later line is the newer); a row without a date is the import's time.
    const csv =
      'email,created_at\nc@example.com,2023-05-05\na@example.com,2019-01-01\nb1@example.com,2021-02-02\nb2@example.com,2021-02-02\nnow@example.com,\n';
    expect(ok(await upload(p, csv))).toMatchObject({ imported: 5 });
    const order = ['now@example.com', 'live@example.com', 'c@example.com', 'b2@example.com', 'b1@example.com', 'a@example.com'];
    const items = await all(p);
    expect(items.map((e) => e.email)).toEqual(order);
    const times = items.map((e) => Date.parse(e.createdAt));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    const exported = await fetch(`${srv.url}/api/project/${p.projectId}/waitlist/export?format=ndjson`, {
      headers: { cookie: owner.cookie },
    });
    const lines = (await exported.text()).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).email)).toEqual(order);
  });

  it('a file of several batches keeps its date order across batch edges, and every row is searchable and counted', async () => {
    const p = await projectWithKey(owner, 'Import Batches');
    const n = BATCH * 2 + 345; // three batches, the last one partial
    const t0 = Date.UTC(2024, 0, 1);
    const lines = Array.from({ length: n }, (_, i) => `b${i}@batch.example,${new Date(t0 + i * 60_000).toISOString()}`);
    lines[n - 1] = `b${BATCH - 1}@batch.example,2025-01-01`; // a duplicate of a row in the first batch
    expect(ok(await upload(p, `email,created_at\n${lines.join('\n')}\n`))).toMatchObject({ imported: n - 1, duplicates: 1 });
    const stats = ok(await owner.get(`/api/project/${p.projectId}/stats`));
    expect(stats.total).toBe(n - 1);
    // The rows on each side of each batch edge are next to each other in the queue, in date order.
    for (const i of [BATCH - 1, BATCH, 2 * BATCH - 1, 2 * BATCH, n - 2]) {
      const found = ok(await owner.get(`/api/project/${p.projectId}/waitlist?search=${encodeURIComponent(`b${i}@batch`)}`));
      expect(found.items.map((e: { email: string }) => e.email)).toContain(`b${i}@batch.example`);
      const e = found.items.find((x: { email: string }) => x.email === `b${i}@batch.example`);
      expect(e.position).toBe(i + 1);
    }
  });

  it('a file of several batches newest first (as exports are) queues by date across batches, after the list', async () => {
    const p = await projectWithKey(owner, 'Import Newest First');
    const before = ok(await postJoin(srv.url, p.slug, p.key, { email: 'already@example.com' }), 201);
    const n = BATCH + 400; // two batches: the second holds the oldest rows
    const t0 = Date.UTC(2024, 0, 1);
    // Line i+2 holds r{i}, dated t0 + (n - 1 - i) minutes: the last line is the oldest.
    const lines = Array.from({ length: n }, (_, i) => `r${i}@newest.example,${new Date(t0 + (n - 1 - i) * 60_000).toISOString()}`);
    expect(ok(await upload(p, `email,created_at\n${lines.join('\n')}\n`))).toMatchObject({ imported: n, duplicates: 0 });
    const at = async (i: number) => {
      const found = ok(await owner.get(`/api/project/${p.projectId}/waitlist?search=${encodeURIComponent(`r${i}@newest`)}`));
      return found.items.find((x: { email: string }) => x.email === `r${i}@newest.example`).position;
    };
    // The oldest (last line) right after the entry that was there; the newest (first line) last.
    expect(await at(n - 1)).toBe(2);
    expect(await at(n - 400)).toBe(401); // the oldest row of the first batch follows the second batch's
    expect(await at(n - 401)).toBe(402);
    expect(await at(0)).toBe(n + 1);
    expect((await owner.get(`/api/project/${p.projectId}/waitlist/${before.entryId}`)).body.data.position).toBe(1);
    const page = ok(await owner.get(`/api/project/${p.projectId}/waitlist?sort=position&limit=3&page=1`));
    expect(page.items.map((e: { email: string }) => e.email)).toEqual([
      'already@example.com',
      `r${n - 1}@newest.example`,
      `r${n - 2}@newest.example`,
    ]);
    // A join after the import queues behind all of it.
    expect(ok(await postJoin(srv.url, p.slug, p.key, { email: 'after@example.com' }), 201).position).toBe(n + 2);
  });

  it('a dry run counts the same and writes nothing', async () => {
    const p = await projectWithKey(owner, 'Import Dry');
    ok(await postJoin(srv.url, p.slug, p.key, { email: 'zoe.torvalds0@example.com' }), 201);
    const r = ok(await upload(p, fixture('getwaitlist-style.csv'), 'format=csv&dryRun=true'));
    expect(r).toMatchObject({ dryRun: true, imported: 40 - 2 - 2, duplicates: 2, invalidCount: 2 });
    expect((await all(p)).length).toBe(1);
  });
});

describe('bad input: clear errors, never a 500', () => {
  let p: PK;
  beforeAll(async () => {
    p = await projectWithKey(owner, 'Import Bad');
  });

  it('a file with no email column → 400 naming email; an empty file → 400', async () => {
    const r = await upload(p, 'name,company\nAda,Acme\n');
    expect(issuePaths(r as never)).toEqual(['email']);
    expect(r.body.error.issues[0].message).toContain('"name", "company"');
    expect(issuePaths((await upload(p, '')) as never)).toEqual(['file']);
  });

  it('NDJSON createdAt numbers: Unix seconds or milliseconds; anything else is refused by line, never a 500', async () => {
    const lines = [
      { email: 'n1@example.com', createdAt: 1700000000 },
      { email: 'n2@example.com', createdAt: 1700000000123 },
      { email: 'n3@example.com', createdAt: 1e20 },
      { email: 'n4@example.com', createdAt: -5000 },
      { email: 'n5@example.com', createdAt: 1.5 },
    ].map((l) => JSON.stringify(l));
    const r = ok(await upload(p, lines.join('\n'), 'format=ndjson', 'application/x-ndjson'));
    expect(r.imported).toBe(2);
    expect(r.invalid.map((i: { line: number }) => i.line)).toEqual([3, 4, 5]);
    expect(r.invalid[0].message).toMatch(/^createdAt: /);
    expect((await byEmail(p, 'n1@example.com')).createdAt).toBe('2023-11-14T22:13:20.000Z');
    expect((await byEmail(p, 'n2@example.com')).createdAt).toBe('2023-11-14T22:13:20.123Z');
    ok(await owner.get(`/api/project/${p.projectId}/waitlist`));
  });

  it('a NUL or an unpaired surrogate in stored text is a bad row (the join refuses them), never a 500 losing the file', async () => {
    const lines = [
      { email: 'nul1@example.com', name: 'kept' },
      { email: 'nul2@example.com', name: 'a\u0000b' },
      { email: 'nul3@example.com', source: 'a\u0000b' },
      { email: 'nul4@example.com', name: 'a\ud800b' },
      { email: 'nul5@example.com', userAgent: 'x\u0000' },
      { email: 'nul6@example.com', metadata: { note: 'a\u0000b' } },
    ].map((l) => JSON.stringify(l));
    const r = ok(await upload(p, lines.join('\n'), 'format=ndjson', 'application/x-ndjson'));
    expect(r.imported).toBe(2);
    expect(r.invalid).toEqual([
      { line: 2, message: 'name: must not contain NUL characters' },
      { line: 3, message: 'source: must not contain NUL characters' },
      { line: 4, message: 'name: must not contain unpaired UTF-16 surrogates' },
      { line: 5, message: 'userAgent: must not contain NUL characters' },
    ]);
    const csv = ok(await upload(p, 'email,name\nnul7@example.com,"a\u0000b"\nnul8@example.com,fine\n'));
    expect(csv).toMatchObject({ imported: 1, invalid: [{ line: 2, message: 'name: must not contain NUL characters' }] });
    expect((await byEmail(p, 'nul1@example.com')).name).toBe('kept');
    expect((await byEmail(p, 'nul6@example.com')).metadata).toEqual({ note: 'a\u0000b' });
  });

  it('a 10 MB line is reported by line and the rows around it are kept', async () => {
    const body = `email,name\nbig1@example.com,ok\nbig2@example.com,${'x'.repeat(10 * 1024 * 1024)}\nbig3@example.com,after\n"big4@example.com,unclosed\nbig5@example.com,lost\n`;
    const r = ok(await upload(p, body));
    expect(r.imported).toBe(2);
    expect(r.invalid).toEqual([
      { line: 3, message: expect.stringMatching(/longer than 1 MiB/) },
      { line: 5, message: expect.stringMatching(/never closed/) },
    ]);
  });

  it('ambiguous slash dates are never guessed: refused by row unless dateFormat says', async () => {
    const csv = 'email,signed up\nd1@example.com,03/04/2025\nd2@example.com,2025-01-01\n';
    const r = ok(await upload(p, csv));
    expect(r.invalid).toEqual([{ line: 2, message: expect.stringMatching(/dateFormat=dmy or dateFormat=mdy/) }]);
    expect(r.dateFormat).toBeNull();
    const us = ok(await upload(p, csv, 'format=csv&dateFormat=mdy'));
    expect(us).toMatchObject({ imported: 1, duplicates: 1, dateFormat: 'mdy' });
    expect((await byEmail(p, 'd1@example.com')).createdAt).toBe('2025-03-04T00:00:00.000Z');
    const settled = ok(
      await upload(p, 'email,date\nd3@example.com,03/04/2025\nd4@example.com,25/12/2024 18:30\nd5@example.com,12/25/2024\n'),
    );
    expect(settled.dateFormat).toBe('dmy');
    expect(settled.invalid).toEqual([{ line: 4, message: expect.stringMatching(/not a valid DD\/MM\/YYYY date/) }]);
    expect((await byEmail(p, 'd3@example.com')).createdAt).toBe('2025-04-03T00:00:00.000Z');
  });

  it('bad query, content type, session, other user → 400/415/401/404', async () => {
    expect(issuePaths((await upload(p, 'email\n', 'format=xlsx')) as never)).toEqual(['format']);
    fails((await upload(p, 'email\n', 'format=csv', 'multipart/form-data; boundary=x')) as never, 415, 'unsupported_media_type');
    const anon = await fetch(`${srv.url}/api/project/${p.projectId}/import?format=csv`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: 'email\n',
    });
    expect(anon.status).toBe(401);
    const other = await signedUp(srv.url); // the server runs with --open-signup
    const r = await fetch(`${srv.url}/api/project/${p.projectId}/import?format=csv`, {
      method: 'POST',
      headers: { cookie: other.cookie, 'content-type': 'text/csv' },
      body: 'email\nstolen@example.com\n',
    });
    expect(r.status).toBe(404);
    expect((await all(p)).some((e) => e.email === 'stolen@example.com')).toBe(false);
  });
});
