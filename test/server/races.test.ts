// Concurrent writes to one row, from the race audit (a lost update on PostgreSQL, where requests run
// at once): settings PUTs of different fields, template PUTs of different parts, and a re-invite racing
// a redeem of the entry's old code. Runs on SQLite and on PostgreSQL.
import { beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../helpers/api.js';
import { type Client, postJoin, projectWithKey, signedUp, uniqueEmail, useServer } from '../helpers/server.js';

// SMTP configured (port 9 refuses: the invite emails fail in the background) so that invites are allowed.
const srv = useServer({ args: ['--smtp-url', 'smtp://127.0.0.1:9'] });
let owner: Client;
beforeAll(async () => {
  owner = await signedUp(srv.url);
});

describe('concurrent PUTs of different fields all land', () => {
  it('settings: eight fields at once, five rounds; every value read back', async () => {
    const p = await projectWithKey(owner);
    const url = `/api/project/${p.projectId}/settings`;
    for (let round = 1; round <= 5; round++) {
      const body: Record<string, unknown> = {
        pageTitle: `Title ${round}`,
        pageDescription: `Description ${round}`,
        referralBoost: round,
        inviteTtlDays: 10 + round,
        inviteUrl: `https://app.example.com/r${round}?invite={code}`,
        referralUrl: `https://example.com/r${round}?ref={code}`,
        publicLeaderboard: round % 2 === 1,
        pendingPurgeDays: round + 1,
      };
      const puts = await Promise.all(Object.entries(body).map(([k, v]) => owner.put(url, { [k]: v })));
      for (const r of puts) expect(r.status, r.text).toBe(200);
      expect(ok(await owner.get(url))).toMatchObject(body);
    }
  });

  it('templates: the parts of one template and of others at once, five rounds; every part read back', async () => {
    const p = await projectWithKey(owner);
    const url = `/api/project/${p.projectId}/templates`;
    for (let round = 1; round <= 5; round++) {
      const parts: [string, 'subject' | 'text'][] = [
        ['invite', 'subject'],
        ['invite', 'text'],
        ['welcome', 'subject'],
        ['welcome', 'text'],
        ['confirmation', 'subject'],
        ['confirmation', 'text'],
      ];
      const value = (t: string, part: string) => `r${round} ${t}.${part} {{email}}`;
      const puts = await Promise.all(parts.map(([t, part]) => owner.put(url, { [t]: { [part]: value(t, part) } })));
      for (const r of puts) expect(r.status, r.text).toBe(200);
      const got = ok(await owner.get(url));
      for (const [t, part] of parts) expect(got[t][part], `${t}.${part} in round ${round}`).toBe(value(t, part));
    }
  });
});

describe('a re-invite racing a redeem of the old code', () => {
  it('never both succeed: the entry is accepted once (re-invite refused) or invited anew (old code unknown)', async () => {
    const p = await projectWithKey(owner);
    const secret = ok(await owner.post(`/api/project/${p.projectId}/apikey`, { name: 'backend', kind: 'secret' }), 201).key as string;
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const e = ok(await postJoin(srv.url, p.slug, p.key, { email: uniqueEmail('race') }), 201);
      const first = ok(await owner.post(`/api/project/${p.projectId}/invites`, { entryIds: [e.entryId] }));
      const code = first.invited[0].inviteCode as string;
      const [again, redeem] = await Promise.all([
        owner.post(`/api/project/${p.projectId}/invites`, { entryIds: [e.entryId] }),
        owner.post(`/v1/waitlist/${p.slug}/invites/redeem`, { code }, { authorization: `Bearer ${secret}` }),
      ]);
      outcomes.push(`${again.status}/${redeem.status}`);
      const entry = ok(await owner.get(`/api/project/${p.projectId}/waitlist/${e.entryId}`));
      if (redeem.status === 200) {
        expect(again.status, `re-invite after the redeem: ${again.text}`).toBe(400);
        expect(entry.status).toBe('accepted');
      } else {
        expect(again.status).toBe(200);
        expect(redeem.status).toBe(404);
        expect(entry.status).toBe('invited');
      }
    }
    expect(outcomes.every((o) => o === '400/200' || o === '200/404')).toBe(true);
  });
});
