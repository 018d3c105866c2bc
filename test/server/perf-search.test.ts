// Search and paging over the indexed paths (FTS5 trigram for 3+ characters, LIKE for 1-2), checked
// against a reference computed in the test: case-insensitive substring of email or name, `%` and `_`
// literal, Unicode letters, newest first, soft-deleted entries never counted; and the join path
// seeing a project restored by `waitlist admin` from another process at once.
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, DIALECT, postJoin, projectWithKey, signedUp, type Client, useServer } from '../helpers/server.js';

interface Joined {
  entryId: string;
  email: string;
  name: string | null;
}

let owner: Client;
let project: Awaited<ReturnType<typeof projectWithKey>>;
const joined: Joined[] = []; // oldest first

const PEOPLE: [string, string | null][] = [
  ['ann.lee@example.com', 'Ann Lee'],
  ['zoe@example.com', 'Zoë Ålander'],
  ['pct@example.com', '100% Pure_Joy'],
  ['under_score@example.com', 'Plain'],
  ['BOB.Smith@Example.com', 'Robert'],
  ['jose@example.com', 'José Núñez'],
  ['quote@example.com', 'Say "hi" there'],
  ['nameless@example.com', null],
  ['greek@example.com', 'ΣΩΚΡΑΤΗΣ'],
];

const srv = useServer();
beforeAll(async () => {
  owner = await signedUp(srv.url);
  project = await projectWithKey(owner, 'Search');
  const all: [string, string | null][] = [...PEOPLE];
  for (let i = 1; i <= 23; i++) all.push([`filler${i}@example.com`, `Filler ${i}`]);
  for (const [email, name] of all) {
    const r = await postJoin(srv.url, project.slug, project.key, name === null ? { email } : { email, name });
    expect(r.status).toBe(201);
    joined.push({ entryId: r.body.data.entryId, email, name });
  }
});

const deleted = new Set<string>();
/** The reference: live entries whose email or name contains the needle, case-insensitively, newest first. */
function expected(needle?: string): string[] {
  const n = needle?.toLowerCase();
  return joined
    .filter((e) => !deleted.has(e.entryId))
    .filter((e) => !n || e.email.toLowerCase().includes(n) || (e.name ?? '').toLowerCase().includes(n))
    .map((e) => e.email)
    .reverse();
}

async function page(params: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]));
  const r = await owner.get(`/api/project/${project.projectId}/waitlist?${qs}`);
  expect(r.status).toBe(200);
  return r.body.data as { items: { email: string }[]; total: number; totalPages: number; page: number; limit: number };
}

async function allPages(search: string | undefined, limit: number) {
  const first = await page({ limit, ...(search ? { search } : {}) });
  const emails = first.items.map((i) => i.email);
  for (let p = 2; p <= first.totalPages; p++) {
    const d = await page({ limit, page: p, ...(search ? { search } : {}) });
    expect(d.total).toBe(first.total);
    emails.push(...d.items.map((i) => i.email));
  }
  return { total: first.total, emails };
}

const NEEDLES = [
  'ann',
  'AN',
  'a',
  'e',
  'smith',
  'SMITH',
  'bob.s',
  'example.com',
  'filler1',
  'Filler 2',
  'ålander',
  'ÅLAND',
  'ë',
  'Ë',
  'ñ',
  'núñez',
  'ΣΩΚ',
  'σωκράτης',
  'σω',
  'ç',
  '%',
  '_',
  '0%',
  '0% p',
  'e_j',
  '_j',
  '%_',
  'r_s',
  '"hi"',
  '"',
  'y "h',
  '\\',
  'zzz',
  'qq',
];

describe('entry search', () => {
  it.each(NEEDLES)('matches %j like the reference (total and every page)', async (needle) => {
    const want = expected(needle);
    const got = await allPages(needle, 4);
    expect(got.total).toBe(want.length);
    expect(got.emails).toEqual(want);
  });

  it('pages the unfiltered list newest first, from both ends', async () => {
    const want = expected();
    for (const limit of [1, 7, 20, 100]) {
      const got = await allPages(undefined, limit);
      expect(got.total).toBe(want.length);
      expect(got.emails).toEqual(want);
    }
    const past = await page({ page: 99, limit: 10 });
    expect(past.items).toEqual([]);
    expect(past.total).toBe(want.length);
  });

  it('forgets soft-deleted entries in totals and search, and counts a re-join', async () => {
    const ann = joined[0]!;
    const r = await owner.del(`/api/project/${project.projectId}/waitlist/${ann.entryId}`);
    expect(r.status).toBe(200);
    deleted.add(ann.entryId);
    expect((await page({ search: 'ann' })).total).toBe(0);
    expect((await page({ search: 'an' })).total).toBe(expected('an').length);
    expect((await page({})).total).toBe(expected().length);
    const again = await postJoin(srv.url, project.slug, project.key, { email: ann.email, name: 'Ann Again' });
    expect(again.status).toBe(201);
    joined.push({ entryId: again.body.data.entryId, email: ann.email, name: 'Ann Again' });
    expect((await page({ search: 'ann again' })).items.map((i) => i.email)).toEqual([ann.email]);
    expect((await page({})).total).toBe(expected().length);
  });

  it('finds renamed entries under the new name only', async () => {
    const plain = joined.find((e) => e.name === 'Plain')!;
    const r = await owner.put(`/api/project/${project.projectId}/waitlist/${plain.entryId}`, { name: 'Renamed Person' });
    expect(r.status).toBe(200);
    plain.name = 'Renamed Person';
    expect((await page({ search: 'plain' })).total).toBe(0);
    expect((await page({ search: 'renamed' })).items.map((i) => i.email)).toEqual([plain.email]);
  });

  it('exports search results the same as the list', async () => {
    for (const needle of ['filler', 'ë', 'example']) {
      const r = await owner.get(`/api/project/${project.projectId}/waitlist/export?format=ndjson&search=${encodeURIComponent(needle)}`);
      expect(r.status).toBe(200);
      const emails = r.text
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).email);
      expect(emails).toEqual(expected(needle));
    }
  });
});

describe.runIf(DIALECT === 'sqlite')('entry search when rowid order and id order differ (SQLite fallback)', () => {
  it('sorts by id instead of walking rowids, with the same results', async () => {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(srv.dbFile);
    db.prepare(`UPDATE search_state SET v = 0 WHERE k = 'rowid_order'`).run();
    db.close();
    for (const needle of ['a', 'ë', 'filler', 'example.com', '%', 'zzz']) {
      const got = await allPages(needle, 3);
      expect(got.emails).toEqual(expected(needle));
      expect(got.total).toBe(expected(needle).length);
    }
  });
});

describe('join after delete and restore from another process', () => {
  it('answers 404 right after delete and 201 right after `waitlist admin project restore`', async () => {
    const p = await projectWithKey(owner, 'Restorable');
    expect((await postJoin(srv.url, p.slug, p.key, { email: 'before@example.com' })).status).toBe(201);
    expect((await owner.del(`/api/project/${p.projectId}`)).status).toBe(200);
    expect((await postJoin(srv.url, p.slug, p.key, { email: 'during@example.com' })).status).toBe(404);
    const restore = await execa('node', [BIN, 'admin', 'project', 'restore', p.projectId], { env: srv.dbEnv, reject: false });
    expect(restore.exitCode).toBe(0);
    expect((await postJoin(srv.url, p.slug, p.key, { email: 'after@example.com' })).status).toBe(201);
    const list = await owner.get(`/api/project/${p.projectId}/waitlist`);
    expect(list.body.data.total).toBe(2);
  });
});
