// POST /api/project/:projectId/import: hosted-tool exports (fixtures), this server's own CSV export,
// NDJSON, dry runs, duplicates, bad rows with line numbers, date formats, a 10 MB line, a file without
// an email column, encodings (Windows-1252, UTF-16, bytes that are not UTF-8), stray quotes, what the
// join refuses in metadata and fields, imported statuses' times. Over HTTP against the real server.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BATCH } from '../../src/core/import/run.js';
import { fails, issuePaths, ok, raw } from '../helpers/api.js';
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

describe('line numbers', () => {
  it.each([
    ['a quoted LF', 'email,name\ncr1@example.com,"x\ny"\nbad1,\n', 4],
    ['a quoted CRLF (a Windows name in a Unix file)', 'email,name\ncr2@example.com,"x\r\ny"\nbad2,\n', 4],
    ['a quoted CR alone', 'email,name\ncr3@example.com,"x\ry"\nbad3,\n', 3],
    ['two quoted CRLFs in a CRLF file', 'email,name\r\ncr4@example.com,"x\r\ny\r\nz"\r\ncr5@example.com,"a\r\nb"\r\nbad4,\r\n', 7],
  ])('a bad row after %s is reported at its own line (lines counted by LF, as an editor shows them)', async (_what, csv, line) => {
    const p = await projectWithKey(owner, `Lines ${line} ${Math.random()}`);
    const r = ok(await upload(p, csv));
    expect(r.invalid).toEqual([{ line, message: expect.stringContaining('email') }]);
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
    const csvRes = await upload(p, 'email,name\nnul7@example.com,"a\u0000b"\nnul8@example.com,fine\n');
    expect(csvRes.body.message).toBe('Imported 1 entry');
    const csv = ok(csvRes);
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

describe('encodings: a file that is not UTF-8 is never stored with U+FFFD', () => {
  let p: PK;
  beforeAll(async () => {
    p = await projectWithKey(owner, 'Import Enc');
  });
  const chunked = (chunks: (string | Buffer)[], query = 'format=csv', type = 'text/csv') =>
    raw(srv.url, 'POST', `/api/project/${p.projectId}/import?${query}`, {
      headers: { cookie: owner.cookie, 'content-type': type, origin: srv.url },
      chunks,
    });

  it('Windows-1252 / Latin-1 CSV and NDJSON are read as Windows-1252 (smart quotes and € too)', async () => {
    const csv = Buffer.from(
      'email,name,notes\r\nw1@example.com,Fran\xe7ois,\x93quoted\x94 \x80 5\r\nw2@example.com,J\xfcrgen M\xfcller,\r\n',
      'latin1',
    );
    expect(ok(await upload(p, csv))).toMatchObject({ imported: 2, invalid: [] });
    expect(await byEmail(p, 'w1@example.com')).toMatchObject({ name: 'François', metadata: { notes: '“quoted” € 5' } });
    expect((await byEmail(p, 'w2@example.com')).name).toBe('Jürgen Müller');
    const nd = Buffer.from('{"email":"w3@example.com","name":"Ren\xe9e \x96 Z\x9aok"}\n', 'latin1');
    expect(ok(await upload(p, nd, 'format=ndjson', 'application/x-ndjson'))).toMatchObject({ imported: 1, invalid: [] });
    expect((await byEmail(p, 'w3@example.com')).name).toBe('Renée – Zšok');
  });

  it('the first non-ASCII bytes decide for the whole file, even more than 1 MB in', async () => {
    const ascii = Array.from({ length: 45_000 }, (_, i) => `a${i}@late.example,Plain ${i}\n`).join(''); // ~1.1 MB
    const r = ok(
      await upload(p, Buffer.concat([Buffer.from(`email,name\n${ascii}`), Buffer.from('late@example.com,Fran\xe7ois\n', 'latin1')])),
    );
    expect(r).toMatchObject({ imported: 45_001, invalid: [] });
    expect((await byEmail(p, 'late@example.com')).name).toBe('François');
  });

  it('a UTF-8 file keeps its characters across chunk edges; bytes that are not UTF-8 later make bad rows, by line', async () => {
    const utf8 = Buffer.from('email,name\nu1@example.com,Zoë ✓ 😀\n');
    // Every multibyte character cut between two chunks of the request body.
    const cut = [16 + 12, 16 + 14, 16 + 16, 16 + 19];
    const chunks = cut.map((end, i) => utf8.subarray(i ? cut[i - 1] : 0, end));
    chunks.push(utf8.subarray(cut[cut.length - 1]));
    chunks.push(Buffer.from('u2@example.com,Fran\xe7ois\nu3@example.com,"multi\nline \xe9",x\nu4@example.com,fine\n', 'latin1'));
    const r = (await chunked(chunks)).body.data;
    expect(r).toMatchObject({ imported: 2, invalidCount: 2 });
    expect(r.invalid).toEqual([
      { line: 3, message: expect.stringMatching(/^Not UTF-8/) },
      { line: 4, message: expect.stringMatching(/^Not UTF-8/) },
    ]);
    expect((await byEmail(p, 'u1@example.com')).name).toBe('Zoë ✓ 😀');
    expect(await byEmail(p, 'u2@example.com')).toBeUndefined();
    expect((await byEmail(p, 'u4@example.com')).name).toBe('fine');
    // NDJSON alike, and a UTF-8 BOM says UTF-8 from the first byte.
    const nd = Buffer.concat([
      Buffer.from('\ufeff{"email":"u5@example.com"}\n'),
      Buffer.from('{"email":"u6@example.com","name":"\xe9"}\n', 'latin1'),
      Buffer.from('{"email":"u7@example.com","name":"é"}\n'),
    ]);
    const n = ok(await upload(p, nd, 'format=ndjson', 'application/x-ndjson'));
    expect(n).toMatchObject({ imported: 2, invalid: [{ line: 2, message: expect.stringMatching(/^Not UTF-8/) }] });
    expect((await byEmail(p, 'u7@example.com')).name).toBe('é');
  });

  it('the Windows-1252 decision made in a later chunk, and a cut UTF-8 sequence at the very end', async () => {
    const r = (await chunked([Buffer.from('email,name\nc1@example.com,A'), Buffer.from('\xe9\nc2@example.com,\x80\n', 'latin1')])).body
      .data;
    expect(r).toMatchObject({ imported: 2, invalid: [] });
    expect((await byEmail(p, 'c1@example.com')).name).toBe('Aé');
    expect((await byEmail(p, 'c2@example.com')).name).toBe('€');
    const end = ok(
      await upload(p, Buffer.concat([Buffer.from('email,name\nc3@example.com,ü\nc4@example.com,x'), Buffer.from([0xe2, 0x82])])),
    );
    expect(end).toMatchObject({ imported: 1, invalid: [{ line: 3, message: expect.stringMatching(/^Not UTF-8/) }] });
  });

  it('UTF-16 with a BOM (LE and BE) still reads, CSV and NDJSON', async () => {
    const text = 'email;name\r\nle@example.com;"Zoë ""Z"""\r\n';
    expect(ok(await upload(p, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])))).toMatchObject({ imported: 1 });
    expect((await byEmail(p, 'le@example.com')).name).toBe('Zoë "Z"');
    const be = Buffer.from(text.replace('le@', 'be@'), 'utf16le').swap16();
    expect(ok(await upload(p, Buffer.concat([Buffer.from([0xfe, 0xff]), be])))).toMatchObject({ imported: 1 });
    expect((await byEmail(p, 'be@example.com')).name).toBe('Zoë "Z"');
    const nd = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"email":"nd16@example.com","name":"Ünal"}\n', 'utf16le')]);
    expect(ok(await upload(p, nd, 'format=ndjson', 'application/x-ndjson'))).toMatchObject({ imported: 1, invalid: [] });
    expect((await byEmail(p, 'nd16@example.com')).name).toBe('Ünal');
  });
});

describe('quotes: only a quote at the start of a field opens a quoted field (as csv-parse reads it)', () => {
  let p: PK;
  beforeAll(async () => {
    p = await projectWithKey(owner, 'Import Quotes');
  });

  it('a stray quote inside an unquoted field is an ordinary character and the rows after it are kept', async () => {
    const r = ok(await upload(p, 'email,name,height\nq1@example.com,O"Brien,5 ft 10"\nq2@example.com,Ann,\nq3@example.com,Bob,6\'1"\n'));
    expect(r).toMatchObject({ imported: 3, invalid: [] });
    expect(await byEmail(p, 'q1@example.com')).toMatchObject({ name: 'O"Brien', metadata: { height: '5 ft 10"' } });
    expect((await byEmail(p, 'q3@example.com')).metadata).toEqual({ height: '6\'1"' });
  });

  it('quoted fields still hold delimiters, newlines and doubled quotes; a quote after a space or after a closing quote is text', async () => {
    const csv =
      'email;name;note\n' +
      'q4@example.com;"Smith; ""Jo""\nsecond line";x\n' +
      'q5@example.com; "spaced";"closed"then\n' +
      'q6@example.com;"";"a""b"\n' +
      'q7@example.com;ok;ok\n';
    const r = ok(await upload(p, csv));
    expect(r).toMatchObject({ imported: 4, invalid: [] });
    expect(await byEmail(p, 'q4@example.com')).toMatchObject({ name: 'Smith; "Jo"\nsecond line', metadata: { note: 'x' } });
    // (the name is trimmed, as every imported name is; the quotes show the one after the space was text)
    expect(await byEmail(p, 'q5@example.com')).toMatchObject({ name: '"spaced"', metadata: { note: '"closed"then' } });
    expect(await byEmail(p, 'q6@example.com')).toMatchObject({ name: null, metadata: { note: 'a"b' } });
  });

  it('a stray quote before more than 1 MiB of rows loses none of them', async () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => `big${i}@quote.example,Row ${i}\n`).join(''); // ~1.3 MB
    const r = ok(await upload(p, `email,name\nstray@quote.example,O"Brien\n${rows}`));
    expect(r).toMatchObject({ imported: 50_001, invalid: [] });
  });

  it('a genuinely unclosed quoted field is still reported at its line, with the rows before it kept', async () => {
    const r = ok(await upload(p, 'email,name\nu1@quote.example,ok\nu2@quote.example,"never closed\nu3@quote.example,swallowed\n'));
    expect(r).toMatchObject({ imported: 1, invalid: [{ line: 3, message: expect.stringMatching(/never closed/) }] });
  });
});

describe('import refuses what the join refuses in metadata and fields', () => {
  let p: PK;
  beforeAll(async () => {
    p = await projectWithKey(owner, 'Import Lone');
    ok(await owner.put(`/api/project/${p.projectId}/settings`, { fields: [{ key: 'company', label: 'Company', type: 'text' }] }));
  });

  it('an unpaired surrogate in a metadata key or value at any depth, or in a fields answer, is a bad row, as the join answers 400', async () => {
    const bad = [
      { metadata: { k: '\udfff' } },
      { metadata: { '\ud800': 1 } },
      { metadata: { a: { b: ['x', 'y\ud800'] } } },
      { metadata: { a: { '\udc00x': true } } },
      { fields: { company: 'Acme \ud800' } },
    ];
    const paths = ['metadata.k', 'metadata', 'metadata.a.b.1', 'metadata.a', 'fields.company'];
    for (const [i, b] of bad.entries()) {
      const j = await postJoin(srv.url, p.slug, p.key, { email: `join${i}@lone.example`, ...b });
      expect(issuePaths(j as never)).toEqual([paths[i]]);
    }
    const good = [
      { email: 'ok1@lone.example', metadata: { note: 'a\u0000b', '\u0000k': 'nul is kept, as the join keeps it', pair: '😀' } },
      { email: 'ok2@lone.example', fields: { company: 'Acme 😀' } },
    ];
    const lines = [...bad.map((b, i) => ({ email: `imp${i}@lone.example`, ...b })), ...good].map((l) => JSON.stringify(l));
    const r = ok(await upload(p, lines.join('\n'), 'format=ndjson', 'application/x-ndjson'));
    expect(r.imported).toBe(2);
    expect(r.invalid).toEqual(paths.map((path, i) => ({ line: i + 1, message: `${path}: must not contain unpaired UTF-16 surrogates` })));
    for (const g of good) ok(await postJoin(srv.url, p.slug, p.key, { ...g, email: `join-${g.email}` }), 201);
    for (const g of good) {
      const imported = await byEmail(p, g.email);
      const joined = await byEmail(p, `join-${g.email}`);
      expect(imported.metadata).toEqual(joined.metadata);
      expect(imported.fields).toEqual(joined.fields);
    }
    // A metadata column of a CSV file is checked the same way.
    const csv = ok(await upload(p, 'email,metadata\ncsv1@lone.example,"{""k"":""\\udfff""}"\ncsv2@lone.example,"{""k"":""ok""}"\n'));
    expect(csv).toMatchObject({ imported: 1, invalid: [{ line: 2, message: 'metadata.k: must not contain unpaired UTF-16 surrogates' }] });
  });

  it('a metadata number too large for a double (1e400) is a bad row, as the join answers 400', async () => {
    const body = (email: string) => `{"email":"${email}","metadata":{"k":1,"deep":{"n":-1e400}}}`;
    const j = await raw(srv.url, 'POST', `/v1/waitlist/${p.slug}/join`, {
      headers: { authorization: `Bearer ${p.key}`, 'content-type': 'application/json' },
      body: body('inf-join@lone.example'),
    });
    expect(j.status).toBe(400);
    const lines = `${body('inf-import@lone.example')}\n{"email":"inf-ok@lone.example","metadata":{"n":1e300}}\n`;
    const r = ok(await upload(p, lines, 'format=ndjson', 'application/x-ndjson'));
    expect(r).toMatchObject({
      imported: 1,
      invalid: [{ line: 1, message: 'metadata.deep.n is a number too large to store (like 1e400)' }],
    });
    expect((await byEmail(p, 'inf-ok@lone.example')).metadata).toEqual({ n: 1e300 });
  });
});

describe('imported statuses carry their times', () => {
  it('an imported invited or accepted row has invitedAt (and acceptedAt) at its createdAt', async () => {
    const p = await projectWithKey(owner, 'Import Invited');
    const lines = [
      { email: 'inv@example.com', status: 'invited', createdAt: '2025-01-02T03:04:05Z' },
      { email: 'acc@example.com', status: 'accepted', createdAt: '2025-01-03T03:04:05Z' },
      { email: 'wait@example.com', status: 'waiting', createdAt: '2025-01-04T03:04:05Z' },
    ].map((l) => JSON.stringify(l));
    expect(ok(await upload(p, lines.join('\n'), 'format=ndjson', 'application/x-ndjson'))).toMatchObject({ imported: 3 });
    expect(await byEmail(p, 'inv@example.com')).toMatchObject({
      status: 'invited',
      invitedAt: '2025-01-02T03:04:05.000Z',
      acceptedAt: null,
    });
    expect(await byEmail(p, 'acc@example.com')).toMatchObject({
      status: 'accepted',
      invitedAt: '2025-01-03T03:04:05.000Z',
      acceptedAt: '2025-01-03T03:04:05.000Z',
    });
    expect(await byEmail(p, 'wait@example.com')).toMatchObject({ status: 'waiting', invitedAt: null, acceptedAt: null });
  });
});
