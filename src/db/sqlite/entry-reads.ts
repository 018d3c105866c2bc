// Entry list, search and export reads for SQLite, written as prepared statements because they are the
// ones that must stay fast at a million entries (migrations/sqlite/0003_search_index.sql and
// 0008_search.sql have the structures they use):
// - unfiltered total: entry_counts (kept by triggers), not COUNT(*);
// - deep pages: an OFFSET walk over the (project_id, id) index, from whichever end is nearer;
// - search of 3+ characters: the FTS5 trigram index, a quoted MATCH phrase; 1-2 characters: LIKE over
//   the narrow entries_search table (trigrams cannot answer them). Both: case-insensitive substring of
//   email or name, `%` and `_` literal, and both read only the project's own key range (search keys
//   start with the project's number, migrations/sqlite/0008_search.sql), so the total is counted by
//   the index alone however many other projects share the database.
import type Database from 'better-sqlite3';
import { fold, foldChar, unfold } from '../fold.js';
import { escapeLike, EXPORTED_COLUMNS, toExported, type Counted, type EntryRow, type ExportedEntry, type PageArgs } from '../store.js';
import { Statements } from './statements.js';

// Rows are read as arrays (.raw()) and turned into objects here: ~2x faster than better-sqlite3's
// own row objects, which matters when an export reads a million of them.
export const COLS = `e.id, e.project_id, e.email, e.email_norm, e.name, e.source, e.metadata, e.ip, e.country, e.user_agent,
  e.created_at, e.updated_at, e.deleted_at, e.status, e.ordinal, e.k, e.referral_code, e.referred_by, e.referrals,
  e.status_token_hash, e.confirm_token_hash, e.confirm_sent_at, e.confirm_resent_at, e.confirmed_at, e.invited_at,
  e.accepted_at, e.invite_code_hash, e.invite_expires_at, e.fields`;
export type RawRow = [
  string,
  string,
  string,
  string,
  string | null,
  string,
  string,
  string | null,
  string | null,
  string | null,
  number,
  number,
  number | null,
  ...unknown[],
];
export const toRow = (r: RawRow): EntryRow => ({
  id: r[0],
  projectId: r[1],
  email: r[2],
  emailNorm: r[3],
  name: r[4],
  source: r[5],
  metadata: r[6],
  ip: r[7],
  country: r[8],
  userAgent: r[9],
  createdAt: r[10],
  updatedAt: r[11],
  deletedAt: r[12],
  status: r[13] as EntryRow['status'],
  ordinal: r[14] as number,
  k: r[15] as number,
  referralCode: r[16] as string | null,
  referredBy: r[17] as string | null,
  referrals: r[18] as number,
  statusTokenHash: r[19] as string | null,
  confirmTokenHash: r[20] as string | null,
  confirmSentAt: r[21] as number | null,
  confirmResentAt: r[22] as number | null,
  confirmedAt: r[23] as number | null,
  invitedAt: r[24] as number | null,
  acceptedAt: r[25] as number | null,
  inviteCodeHash: r[26] as string | null,
  inviteExpiresAt: r[27] as number | null,
  fields: r[28] as string,
});
/** The export's columns (ExportedEntry), read as arrays too. */
const EXPORT_COLS = EXPORTED_COLUMNS.map((c) => `e.${c}`).join(', ');
const LIVE = 'e.project_id = ? AND e.deleted_at IS NULL';
/** The entries.rowid part of a search key (sk = (project number << 40) + rowid). */
const RID_MASK = (1n << 40n) - 1n;

/** How a search needle is matched: an FTS5 phrase, or LIKE patterns (with case variants). */
export type Needle = { kind: 'fts'; phrase: string; folded: string } | { kind: 'like'; patterns: string[] };

/** The FTS phrase for 3+ characters; LIKE patterns (one per case variant of non-ASCII letters) below. */
export function needleOf(search: string): Needle {
  const chars = [...search];
  if (chars.length >= 3) return { kind: 'fts', phrase: `"${search.replaceAll('"', '""')}"`, folded: fold(search) };
  // SQLite's LIKE folds ASCII case only: spell out every non-ASCII character with the same fold
  // (src/db/fold.ts), e.g. é/É, and K (Kelvin sign) for k.
  let variants = [''];
  for (const c of chars) {
    const f = foldChar(c);
    const forms = new Set([c, f, ...unfold(f)].filter((x) => x.charCodeAt(0) > 127 || x === c));
    variants = variants.flatMap((v) => [...forms].map((x) => v + x));
  }
  return { kind: 'like', patterns: variants.map((v) => `%${escapeLike(v)}%`) };
}

const likeClause = (n: number, alias: string) =>
  '(' + Array.from({ length: n }, () => `${alias}.email LIKE ? ESCAPE '\\' OR ${alias}.name LIKE ? ESCAPE '\\'`).join(' OR ') + ')';
const likeArgs = (patterns: string[]) => patterns.flatMap((p) => [p, p]);

export class EntryReads {
  private readonly statements: Statements;
  private readonly read: (fn: () => Counted<EntryRow>) => Counted<EntryRow>;

  constructor(db: Database.Database) {
    this.statements = new Statements(db);
    // One snapshot for the total and the page, so they agree under concurrent joins.
    const tx = db.transaction((fn: () => Counted<EntryRow>) => fn());
    this.read = (fn) => (db.inTransaction ? fn() : tx.deferred(fn));
  }

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  /** Entry rows of a `SELECT ${COLS} …` statement. */
  private rows(sql: string, ...args: unknown[]): EntryRow[] {
    return (this.statements.get(sql, true).all(...args) as RawRow[]).map(toRow);
  }

  /** True while rowid order equals id order (see search_state in the migration). */
  private rowidOrdered(): boolean {
    return this.stmt(`SELECT v FROM search_state WHERE k = 'rowid_order'`).pluck().get() === 1;
  }

  /** A page of live entries, newest first, with the exact total; `search` as described above. */
  list(projectId: string, page: PageArgs, search?: string): Counted<EntryRow> {
    return this.read(() => (search ? this.searchPage(projectId, page, needleOf(search)) : this.plainPage(projectId, page)));
  }

  private plainPage(projectId: string, { offset, limit }: PageArgs): Counted<EntryRow> {
    const total = (this.stmt('SELECT live FROM entry_counts WHERE project_id = ?').pluck().get(projectId) as number | undefined) ?? 0;
    if (offset >= total) return { rows: [], total };
    const fromEnd = total - offset - limit;
    if (offset <= fromEnd) {
      return {
        rows: this.rows(`SELECT ${COLS} FROM entries e WHERE ${LIVE} ORDER BY e.id DESC LIMIT ? OFFSET ?`, projectId, limit, offset),
        total,
      };
    }
    // Past the middle: walk from the oldest end, which is nearer, and reverse.
    const rows = this.rows(
      `SELECT ${COLS} FROM entries e WHERE ${LIVE} ORDER BY e.id ASC LIMIT ? OFFSET ?`,
      projectId,
      Math.min(limit, total - offset),
      Math.max(0, fromEnd),
    );
    return { rows: rows.reverse(), total };
  }

  /**
   * The project's search key range: its rows in entries_search and entries_fts have keys
   * (n << 40) + entries.rowid (migrations/sqlite/0008_search.sql). Null for a project with no number.
   */
  private keyRange(projectId: string): [bigint, bigint] | null {
    const n = this.stmt('SELECT n FROM search_projects WHERE project_id = ?').pluck().get(projectId) as number | undefined;
    if (n === undefined) return null;
    const lo = BigInt(n) << 40n;
    return [lo, lo + RID_MASK];
  }

  /**
   * SQL (and its arguments) selecting the project's matches: `key` is the newest-first order column
   * (for FTS it must be f.rowid, which the index walks in order), `rid` the entries.rowid of a match.
   * Every form stays inside the project's key range, so other projects' rows are never read.
   */
  private matchSource(range: [bigint, bigint], needle: Needle): { from: string; args: unknown[]; key: string; rid: string } {
    if (needle.kind === 'fts' && this.ftsBehind(range)) {
      // Entries of this project still queued for the index (fts_pending, see fts-indexer.ts and
      // migrations/sqlite/0009_join_path.sql) are matched one by one, beside the index's matches.
      return {
        from: `entries_search s WHERE s.sk IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ? AND rowid BETWEEN ? AND ?
          UNION ALL SELECT q.sk FROM fts_pending q JOIN entries_search t ON t.sk = q.sk
          WHERE q.sk BETWEEN ? AND ? AND wl_search_match(t.email, t.name, ?))`,
        args: [needle.phrase, ...range, ...range, needle.folded],
        key: 's.sk',
        rid: `(s.sk & ${RID_MASK})`,
      };
    }
    if (needle.kind === 'fts') {
      return {
        from: `entries_fts f WHERE entries_fts MATCH ? AND f.rowid BETWEEN ? AND ?`,
        args: [needle.phrase, ...range],
        key: 'f.rowid',
        rid: `(f.rowid & ${RID_MASK})`,
      };
    }
    return {
      from: `entries_search s WHERE s.sk BETWEEN ? AND ? AND ${likeClause(needle.patterns.length, 's')}`,
      args: [...range, ...likeArgs(needle.patterns)],
      key: 's.sk',
      rid: `(s.sk & ${RID_MASK})`,
    };
  }

  /** True while some of the project's live entries wait to be added to the FTS index. */
  private ftsBehind(range: [bigint, bigint]): boolean {
    return (
      this.stmt('SELECT EXISTS (SELECT 1 FROM fts_pending WHERE sk BETWEEN ? AND ?)')
        .pluck()
        .get(...range) === 1
    );
  }

  /** `m` joined to the entries it matched (alias e). */
  private static withEntries(m: { from: string; rid: string }): string {
    return m.from.replace(' WHERE ', ` JOIN entries e ON e.rowid = ${m.rid} WHERE `);
  }

  private searchPage(projectId: string, { offset, limit }: PageArgs, needle: Needle): Counted<EntryRow> {
    const range = this.keyRange(projectId);
    if (!range) return { rows: [], total: 0 };
    const m = this.matchSource(range, needle);
    const total = this.stmt(`SELECT count(*) FROM ${m.from}`)
      .pluck()
      .get(...m.args) as number;
    if (offset >= total) return { rows: [], total };
    if (this.rowidOrdered()) {
      // Newest first is rowid order: walk matches from the newest and stop after the page.
      const rids = this.stmt(`SELECT ${m.rid} FROM ${m.from} ORDER BY ${m.key} DESC LIMIT ? OFFSET ?`)
        .pluck()
        .all(...m.args, limit, offset);
      return { rows: this.byRowids(rids as number[]), total };
    }
    const rows = this.rows(
      `SELECT ${COLS} FROM ${EntryReads.withEntries(m)} ORDER BY e.id DESC LIMIT ? OFFSET ?`,
      ...m.args,
      limit,
      offset,
    );
    return { rows, total };
  }

  private byRowids(rids: number[]): EntryRow[] {
    if (rids.length === 0) return [];
    return this.rows(
      `SELECT ${COLS} FROM entries e WHERE e.rowid IN (SELECT value FROM json_each(?)) ORDER BY e.id DESC`,
      JSON.stringify(rids),
    );
  }

  /** Up to `limit` live entries older than `beforeId` (newest first): keyset chunks for exports. */
  before(projectId: string, beforeId: string | null, limit: number, search?: string): ExportedEntry[] {
    const exported = (sql: string, ...args: unknown[]) => (this.statements.get(sql, true).all(...args) as unknown[][]).map(toExported);
    if (!search) {
      const sql = `SELECT ${EXPORT_COLS} FROM entries e WHERE ${LIVE}${beforeId ? ' AND e.id < ?' : ''} ORDER BY e.id DESC LIMIT ?`;
      return exported(sql, ...(beforeId ? [projectId, beforeId, limit] : [projectId, limit]));
    }
    const range = this.keyRange(projectId);
    if (!range) return [];
    const m = this.matchSource(range, needleOf(search));
    const sql = `SELECT ${EXPORT_COLS} FROM ${EntryReads.withEntries(m)}${beforeId ? ' AND e.id < ?' : ''} ORDER BY e.id DESC LIMIT ?`;
    return exported(sql, ...m.args, ...(beforeId ? [beforeId, limit] : [limit]));
  }
}
