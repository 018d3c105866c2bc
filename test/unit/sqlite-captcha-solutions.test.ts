// Migration 0018: used captcha solutions without a key on the signature. A database with used
// solutions from before it keeps refusing them, and solutions used after it are refused after a restart.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { migratedBefore } from '../helpers/sqlite-migrations.js';

const dir = mkdtempSync(join(tmpdir(), 'waitlist-unit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('captcha solutions (SQLite)', () => {
  it('0018 keeps the used solutions, drops the key on the signature, and keeps the expiry index', async () => {
    const file = join(dir, 'old.db');
    const now = Date.now();
    const raw = migratedBefore('0018_captcha_solutions_unkeyed', file, dir);
    raw
      .prepare('INSERT INTO captcha_solutions (signature, expires_at) VALUES (?, ?), (?, ?)')
      .run('sig-live', now + 600_000, 'sig-expired', now - 1000);
    raw.close();

    const store = openSqliteStore(file);
    // Used before the upgrade: still refused; one never used: accepted once.
    expect(await store.useCaptchaSolution('sig-live', now + 600_000, now)).toBe(false);
    expect(await store.useCaptchaSolution('sig-new', now + 600_000, now)).toBe(true);
    expect(await store.useCaptchaSolution('sig-new', now + 600_000, now)).toBe(false);
    await store.close();

    const check = new Database(file, { readonly: true });
    const indexes = check
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'captcha_solutions' ORDER BY name`)
      .pluck()
      .all();
    // No sqlite_autoindex_… on the signature: only the expiry index.
    expect(indexes).toEqual(['captcha_solutions_expires_idx']);
    // The first check pruned the expired row; closing wrote the new one.
    expect(check.prepare('SELECT signature FROM captcha_solutions ORDER BY signature').pluck().all()).toEqual(['sig-live', 'sig-new']);
    check.close();

    // After a restart, the solution used after the upgrade is refused too.
    const again = openSqliteStore(file);
    expect(await again.useCaptchaSolution('sig-new', now + 600_000, now)).toBe(false);
    expect(await again.useCaptchaSolution('sig-other', now + 600_000, now)).toBe(true);
    await again.close();
  });
});
