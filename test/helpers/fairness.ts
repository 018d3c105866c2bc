// The set-up of the send-slot tests (test/server/delivery-fairness*.test.ts): a server on the suite's
// database, a receiver that hangs every request and one that answers, one project with `hooks` webhooks
// to the hanging one and one with a webhook to the quick one. A failed attempt is retried after 10
// minutes, so the ones that timed out stay out of the way.
import { afterAll, beforeAll } from 'vitest';
import { ok } from './api.js';
import { type Blackhole, startBlackhole, startHookReceiver, type HookReceiver } from './receivers.js';
import { cleanup, type Client, postJoin, projectWithKey, signedUp, startServer, uniqueEmail, type TestServer } from './server.js';

type Project = Awaited<ReturnType<typeof projectWithKey>>;

export interface Fairness {
  srv: TestServer;
  owner: Client;
  hole: Blackhole;
  rx: HookReceiver;
  slow: Project;
  quick: Project;
  /** One join (201) to the project. */
  join(p: Project): Promise<unknown>;
}

/** Registers the set-up and tear-down hooks; the fields are filled before the first test. */
export function useFairness(hooks: number): Fairness {
  const f = {} as Fairness;
  beforeAll(async () => {
    f.hole = await startBlackhole();
    f.rx = await startHookReceiver();
    f.srv = await startServer({ args: ['--allow-private-webhooks'], env: { WAITLIST_RETRY_SCHEDULE: '600' } });
    f.owner = await signedUp(f.srv.url);
    f.slow = await projectWithKey(f.owner, `${hooks} hanging webhook(s)`);
    f.quick = await projectWithKey(f.owner, 'Quick receiver');
    for (let i = 0; i < hooks; i++)
      ok(await f.owner.post(`/api/project/${f.slow.projectId}/webhooks`, { url: `${f.hole.url}?n=${i}`, events: ['entry.created'] }), 201);
    const h = ok(await f.owner.post(`/api/project/${f.quick.projectId}/webhooks`, { url: f.rx.url, events: ['entry.created'] }), 201);
    f.rx.setSecret(h.secret);
    f.join = async (p) => ok(await postJoin(f.srv.url, p.slug, p.key, { email: uniqueEmail() }), 201);
  });
  afterAll(async () => {
    await f.srv?.stop();
    await f.hole?.close();
    await f.rx?.close();
    if (f.srv) cleanup(f.srv);
  });
  return f;
}
