// GET /api/project/:projectId/stats over real HTTP: shape, per-day window, totals, top lists, auth.
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, Client, DIALECT, postJoin, projectWithKey, signedUp } from '../helpers/server.js';
import { startApp, type InProcessServer } from '../helpers/app.js';

const DAY = 86_400_000;
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

let srv: InProcessServer;
let owner: Client;

beforeAll(async () => {
  // --trust-proxy: joins may name a public client IP in X-Forwarded-For, which gives a country.
  srv = await startApp({ trustProxy: true, openSignup: true });
  owner = await signedUp(srv.url);
});
afterAll(async () => {
  await srv.stop();
  cleanup(srv);
});

const stats = (c: Client, projectId: string) => c.get(`/api/project/${projectId}/stats`);

describe('GET /api/project/:projectId/stats', () => {
  it('answers zeros and 30 empty UTC days, oldest first, for a new project', async () => {
    const { projectId } = await projectWithKey(owner, 'Empty stats');
    const r = await stats(owner, projectId);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'success', data: { total: 0, today: 0, last7Days: 0, topSources: [], topCountries: [] } });
    const perDay = r.body.data.perDay as { date: string; count: number }[];
    expect(perDay).toHaveLength(30);
    const today = Date.now();
    expect(perDay[29]!.date).toBe(utcDate(today));
    expect(perDay[0]!.date).toBe(utcDate(today - 29 * DAY));
    for (let i = 1; i < 30; i++) expect(Date.parse(perDay[i]!.date) - Date.parse(perDay[i - 1]!.date)).toBe(DAY);
    expect(perDay.every((d) => d.count === 0)).toBe(true);
    expect(Object.keys(r.body.data).sort()).toEqual([
      'byStatus',
      'last7Days',
      'perDay',
      'referred',
      'today',
      'topCountries',
      'topSources',
      'total',
    ]);
    expect(r.body.data.byStatus).toEqual({ pending: 0, waiting: 0, invited: 0, accepted: 0 });
  });

  it('counts joins, ranks sources and countries, and ignores deleted entries', async () => {
    const { projectId, slug, key } = await projectWithKey(owner, 'Counted stats');
    const joins: [string, string, string][] = [
      ['a@example.com', 'hero', '81.2.69.160'], // GB
      ['b@example.com', 'hero', '81.2.69.161'], // GB
      ['c@example.com', 'hero', '8.8.8.8'], // US
      ['d@example.com', 'footer', '8.8.4.4'], // US
      ['e@example.com', 'footer', '5.9.0.1'], // DE
      ['f@example.com', 'ads', '10.0.0.1'], // private: no country
    ];
    const ids: string[] = [];
    for (const [email, source, ip] of joins) {
      const j = await postJoin(srv.url, slug, key, { email, source }, { 'x-forwarded-for': ip });
      expect(j.status, j.text).toBe(201);
      ids.push(j.body.data.entryId);
    }
    // Deleting one "hero" entry from GB: it no longer counts anywhere.
    expect((await owner.del(`/api/project/${projectId}/waitlist/${ids[0]}`)).status).toBe(200);

    const { data } = (await stats(owner, projectId)).body;
    expect(data).toMatchObject({ total: 5, today: 5, last7Days: 5 });
    expect(data.perDay[29]).toEqual({ date: utcDate(Date.now()), count: 5 });
    expect(data.perDay.slice(0, 29).every((d: { count: number }) => d.count === 0)).toBe(true);
    expect(data.topSources).toEqual([
      { source: 'footer', count: 2 },
      { source: 'hero', count: 2 },
      { source: 'ads', count: 1 },
    ]);
    expect(data.topCountries[0]).toEqual({ country: 'US', count: 2 });
    expect(data.topCountries).toHaveLength(3);
    expect(data.topCountries.map((c: { country: string }) => c.country).sort()).toEqual(['DE', 'GB', 'US']);
    for (const list of [data.topSources, data.topCountries]) {
      for (let i = 1; i < list.length; i++) expect(list[i - 1].count).toBeGreaterThanOrEqual(list[i].count);
    }
  });

  it('lists at most 10 sources, largest first', async () => {
    const { projectId, slug, key } = await projectWithKey(owner, 'Many sources');
    for (let i = 0; i < 12; i++) {
      const copies = i === 11 ? 3 : 1; // the last source is the biggest
      for (let n = 0; n < copies; n++) {
        expect((await postJoin(srv.url, slug, key, { email: `s${i}-${n}@example.com`, source: `src-${i}` })).status).toBe(201);
      }
    }
    const { data } = (await stats(owner, projectId)).body;
    expect(data.total).toBe(14);
    expect(data.topSources).toHaveLength(10);
    expect(data.topSources[0]).toEqual({ source: 'src-11', count: 3 });
  });

  // Backdating needs a write under the server: done on the SQLite file (the PostgreSQL store is tested elsewhere).
  it.skipIf(DIALECT !== 'sqlite')('places older entries on their UTC day and leaves out days before the window', async () => {
    const { projectId, slug, key } = await projectWithKey(owner, 'Backdated stats');
    const ids: string[] = [];
    for (const email of ['old1@example.com', 'old2@example.com', 'week@example.com', 'ancient@example.com', 'now@example.com']) {
      const j = await postJoin(srv.url, slug, key, { email });
      ids.push(j.body.data.entryId);
    }
    const now = Date.now();
    const db = new Database(srv.dbFile);
    const setAt = db.prepare('UPDATE entries SET created_at = ? WHERE id = ?');
    setAt.run(now - 10 * DAY, ids[0]);
    setAt.run(now - 10 * DAY, ids[1]);
    setAt.run(now - 3 * DAY, ids[2]);
    setAt.run(now - 45 * DAY, ids[3]);
    db.close();

    const { data } = (await stats(owner, projectId)).body;
    expect(data).toMatchObject({ total: 5, today: 1, last7Days: 2 });
    const byDate = Object.fromEntries(data.perDay.map((d: { date: string; count: number }) => [d.date, d.count]));
    expect(byDate[utcDate(now - 10 * DAY)]).toBe(2);
    expect(byDate[utcDate(now - 3 * DAY)]).toBe(1);
    expect(byDate[utcDate(now)]).toBe(1);
    // The 45-day-old entry counts in the total but in no day of the window.
    expect(data.perDay.reduce((n: number, d: { count: number }) => n + d.count, 0)).toBe(4);
  });

  it('needs a session and hides other users’ projects (404)', async () => {
    const { projectId } = await projectWithKey(owner, 'Private stats');
    const anon = await new Client(srv.url).get(`/api/project/${projectId}/stats`);
    expect(anon.status).toBe(401);
    expect(anon.body).toMatchObject({ status: 'error', error: { code: 'unauthorized' } });
    const other = await signedUp(srv.url);
    const r = await stats(other, projectId);
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: 'error', error: { code: 'not_found' } });
    expect((await stats(owner, 'prj_doesnotexist')).status).toBe(404);
  });

  it('answers 404 once the project is deleted', async () => {
    const { projectId } = await projectWithKey(owner, 'Deleted stats');
    expect((await owner.del(`/api/project/${projectId}`)).status).toBe(200);
    expect((await stats(owner, projectId)).status).toBe(404);
  });
});
