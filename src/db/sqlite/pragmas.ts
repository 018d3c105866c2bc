// Connection settings and the hot statements of the SQLite store's one connection (store.ts); kept apart
// so the durability and locking choices are read in one place.
import type Database from 'better-sqlite3';

/**
 * WAL, durability first (FULL: a commit is fsynced before the 201 goes out), FKs. The busy timeout
 * covers opening and migrating; the server's store then sets it to 20 ms and retries a locked database
 * on timers for up to 1.5 s before answering 503 (see src/db/sqlite/busy.ts, BUSY_BUDGET_MS).
 */
export function applyPragmas(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // 64 MiB page cache (default 2 MiB): search and deep pages revisit index pages; bounded, unlike mmap.
  db.pragma('cache_size = -65536');
  // Statement journals in memory. A statement that may fail half-way (a join's INSERT with its triggers)
  // first copies every page it changes to a statement journal; past 64 KiB SQLite spills that journal to
  // a temporary file, and a join touches about that much, so each join wrote its pages twice through the
  // kernel. In memory the journal costs a memcpy and is freed at the end of the statement. Temporary
  // tables and indexes (none in this schema) would live in memory too.
  db.pragma('temp_store = MEMORY');
}

export const INSERT_ENTRY_SQL = `INSERT INTO entries (id, project_id, email, email_norm, name, source, metadata, ip,
    country, user_agent, created_at, updated_at, deleted_at, status, ordinal, k, referral_code, referred_by, referrals,
    status_token_hash, confirm_token_hash, confirm_sent_at, confirmed_at, fields)
  VALUES (@id, @projectId, @email, @emailNorm, @name, @source, @metadata, @ip, @country, @userAgent, @createdAt,
    @updatedAt, NULL, @status, @ordinal, @k, @referralCode, @referredBy, 0, @statusTokenHash, @confirmTokenHash,
    @confirmSentAt, @confirmedAt, @fields)
  ON CONFLICT (project_id, email_norm) WHERE deleted_at IS NULL DO NOTHING`;

/** An imported row: a join's columns and the invite times an imported `invited` or `accepted` row keeps. */
export const INSERT_IMPORTED_SQL = `INSERT INTO entries (id, project_id, email, email_norm, name, source, metadata, ip,
    country, user_agent, created_at, updated_at, deleted_at, status, ordinal, k, referral_code, referred_by, referrals,
    status_token_hash, confirm_token_hash, confirm_sent_at, confirmed_at, fields, invited_at, accepted_at)
  VALUES (@id, @projectId, @email, @emailNorm, @name, @source, @metadata, @ip, @country, @userAgent, @createdAt,
    @updatedAt, NULL, @status, @ordinal, @k, @referralCode, @referredBy, 0, @statusTokenHash, @confirmTokenHash,
    @confirmSentAt, @confirmedAt, @fields, @invitedAt, @acceptedAt)
  ON CONFLICT (project_id, email_norm) WHERE deleted_at IS NULL DO NOTHING`;

export const TOUCH_KEY_SQL = 'UPDATE api_keys SET last_used_at = ? WHERE id = ?';
