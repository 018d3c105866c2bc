// The SQLite store caches key and project rows for the join path, checked against config_version
// (bumped by triggers) once per event-loop turn: a change made by ANOTHER process on the same file —
// revoking a key, deleting, restoring or re-configuring a project — must show from the next turn on
// (the next request), and a change made through the same store at once, even within the turn.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { entry as entryRow, key as keyRow, project as projectRow, user } from '../store/conformance.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-cache-'));
/** Lets the event loop turn (requests read in one turn share one version read). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite key and project cache', () => {
  it('sees another connection’s revocation, deletion, restore and settings change at once', async () => {
    const file = join(dir, 'cache.db');
    const a = openSqliteStore(file); // the server answering joins
    const b = openSqliteStore(file); // another process: the CLI, a second server
    await b.insertUser(user({ id: 'usr_1' }));
    const project = projectRow('usr_1', { id: 'prj_1', name: 'p', slug: 'cached' });
    expect(await a.projectBySlug('cached')).toBeUndefined(); // unknown: not cached
    await b.insertProject(project);
    await nextTurn();
    expect((await a.projectBySlug('cached'))?.id).toBe('prj_1');
    await b.insertKey(keyRow('prj_1', { id: 'key_1', name: 'k', lookup: 'wl_pk_lookup01', prefix: 'wl_pk_', kind: 'publishable' }));
    expect((await a.keyForAuth('wl_pk_lookup01'))?.revokedAt).toBeNull();
    expect((await a.keyForAuth('wl_pk_lookup01'))?.revokedAt).toBeNull(); // served from the cache

    await b.revokeKey('prj_1', 'key_1', 5);
    await nextTurn();
    expect((await a.keyForAuth('wl_pk_lookup01'))?.revokedAt).toBe(5);

    await b.updateProjectSettings('prj_1', { blockDisposable: true });
    await nextTurn();
    expect((await a.projectBySlug('cached'))?.blockDisposable).toBe(true);
    // A caller changing its copy does not change what the next caller gets.
    const copy = (await a.projectBySlug('cached'))!;
    copy.name = 'changed';
    expect((await a.projectBySlug('cached'))?.name).toBe('p');

    await b.softDeleteProject('prj_1', 6);
    await nextTurn();
    expect(await a.projectBySlug('cached')).toBeUndefined();
    await b.restoreProject('prj_1', 7);
    await nextTurn();
    expect((await a.projectBySlug('cached'))?.id).toBe('prj_1');

    // last_used_at, written by every join batch, does not empty the cache (no version bump).
    const v = () => (a as unknown as { cachedVersion: number }).cachedVersion;
    const before = v();
    await a.insertEntry(entryRow('prj_1', { id: 'ent_1', email: 'e@x.io', createdAt: 8, updatedAt: 8 }), 'key_1');
    await a.keyForAuth('wl_pk_lookup01');
    expect(v()).toBe(before);
    await a.close();
    await b.close();
  });

  it('reads the version once per turn, and a change through the same store shows within the turn', async () => {
    const file = join(dir, 'turn.db');
    const a = openSqliteStore(file);
    const b = openSqliteStore(file);
    await b.insertUser(user({ id: 'usr_1' }));
    await b.insertProject(projectRow('usr_1', { id: 'prj_1', name: 'p', slug: 'turned' }));
    await b.insertKey(keyRow('prj_1', { id: 'key_1', name: 'k', lookup: 'wl_pk_lookup02', prefix: 'wl_pk_', kind: 'publishable' }));
    await nextTurn();
    expect((await a.keyForAuth('wl_pk_lookup02'))?.revokedAt).toBeNull();
    // Another process revokes within this turn: this turn's lookups share the version already read …
    await b.revokeKey('prj_1', 'key_1', 5);
    expect((await a.keyForAuth('wl_pk_lookup02'))?.revokedAt).toBeNull();
    // … and the next turn (the next request) sees it.
    await nextTurn();
    expect((await a.keyForAuth('wl_pk_lookup02'))?.revokedAt).toBe(5);

    // Through the same store: seen at once, in the same turn.
    expect((await a.projectBySlug('turned'))?.id).toBe('prj_1'); // cached now
    await a.softDeleteProject('prj_1', 6);
    expect(await a.projectBySlug('turned')).toBeUndefined();
    await a.restoreProject('prj_1', 7);
    expect((await a.projectBySlug('turned'))?.id).toBe('prj_1');
    await a.close();
    await b.close();
  });
});
