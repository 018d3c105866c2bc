// Entry list, search and export reads for SQLite, written as prepared statements because they are the
// ones that must stay fast at a million entries (migrations/sqlite/0003_search_index.sql has the
// structures they use):
// - unfiltered total: entry_counts (kept by triggers), not COUNT(*);
// - deep pages: an OFFSET walk over the (project_id, id) index, from whichever end is nearer;
// - search of 3+ characters: the FTS5 trigram index, a quoted MATCH phrase; 1-2 characters: LIKE over
//   the narrow entries_search table (trigrams cannot answer them). Both: case-insensitive substring of
//   email or name, `%` and `_` literal.
import type Database from 'better-sqlite3';
import { fold, foldChar, unfold } from '../fold.js';
import { escapeLike, type Counted, type EntryRow, type PageArgs } from '../store.js';

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
const LIVE = 'e.project_id = ? AND e.deleted_at IS NULL';

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
  private readonly stmts = new Map<string, Database.Statement>();
  private readonly read: (fn: () => Counted<EntryRow>) => Counted<EntryRow>;

  constructor(private readonly db: Database.Database) {
    // One snapshot for the total and the page, so they agree under concurrent joins.
    const tx = db.transaction((fn: () => Counted<EntryRow>) => fn());
    this.read = (fn) => (db.inTransaction ? fn() : tx.deferred(fn));
  }

  private stmt(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Entry rows of a `SELECT ${COLS} …` statement. */
  private rows(sql: string, ...args: unknown[]): EntryRow[] {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql).raw();
      this.stmts.set(sql, s);
    }
    return (s.all(...args) as RawRow[]).map(toRow);
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

  /** SQL (and its arguments) selecting the entries_search rows `s` of the project that match. */
  // `rid` is the newest-first order column: for FTS it must be f.rowid, which the index walks in order
  // (ORDER BY s.rid made SQLite collect and sort every match).
  private matchSource(projectId: string, needle: Needle): { from: string; args: unknown[]; rid: string } {
    if (needle.kind === 'fts' && this.ftsBehind()) {
      // Entries queued for the index (fts_pending, see fts-indexer.ts) are matched one by one.
      return {
        from: `entries_search s WHERE s.rid IN (SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?
          UNION ALL SELECT q.rid FROM fts_pending q JOIN entries_search t ON t.rid = q.rid
          WHERE wl_search_match(t.email, t.name, ?)) AND s.project_id = ?`,
        args: [needle.phrase, needle.folded, projectId],
        rid: 's.rid',
      };
    }
    if (needle.kind === 'fts') {
      return {
        from: `entries_fts f JOIN entries_search s ON s.rid = f.rowid WHERE entries_fts MATCH ? AND s.project_id = ?`,
        args: [needle.phrase, projectId],
        rid: 'f.rowid',
      };
    }
    return {
      from: `entries_search s WHERE s.project_id = ? AND ${likeClause(needle.patterns.length, 's')}`,
      args: [projectId, ...likeArgs(needle.patterns)],
      rid: 's.rid',
    };
  }

  /** True while some live entries wait to be added to the FTS index. */
  private ftsBehind(): boolean {
    return this.stmt('SELECT EXISTS (SELECT 1 FROM fts_pending)').pluck().get() === 1;
  }

  /** True when every live entry belongs to this project (a one-waitlist server), from entry_counts. */
  private ownsAll(projectId: string): boolean {
    const r = this.stmt('SELECT sum(live), sum(live) FILTER (WHERE project_id = ?) FROM entry_counts').raw().get(projectId) as
      | [number | null, number | null]
      | undefined;
    return r !== undefined && r[0] !== null && r[0] === r[1];
  }

  /** The number of matches: the index alone can count them when the project owns every live entry. */
  private countMatches(projectId: string, needle: Needle, m: { from: string; args: unknown[] }): number {
    if (needle.kind === 'fts' && !m.from.includes('fts_pending') && this.ownsAll(projectId)) {
      return this.stmt('SELECT count(*) FROM entries_fts WHERE entries_fts MATCH ?').pluck().get(needle.phrase) as number;
    }
    return this.stmt(`SELECT count(*) FROM ${m.from}`)
      .pluck()
      .get(...m.args) as number;
  }

  private searchPage(projectId: string, { offset, limit }: PageArgs, needle: Needle): Counted<EntryRow> {
    const m = this.matchSource(projectId, needle);
    const total = this.countMatches(projectId, needle, m);
    if (offset >= total) return { rows: [], total };
    if (this.rowidOrdered()) {
      // Newest first is rowid order: walk matches from the newest and stop after the page.
      const rids = this.stmt(`SELECT s.rid FROM ${m.from} ORDER BY ${m.rid} DESC LIMIT ? OFFSET ?`)
        .pluck()
        .all(...m.args, limit, offset);
      return { rows: this.byRowids(rids as number[]), total };
    }
    const rows = this.rows(
      `SELECT ${COLS} FROM ${m.from.replace(' WHERE ', ' JOIN entries e ON e.rowid = s.rid WHERE ')} ORDER BY e.id DESC LIMIT ? OFFSET ?`,
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
  before(projectId: string, beforeId: string | null, limit: number, search?: string): EntryRow[] {
    if (!search) {
      const sql = `SELECT ${COLS} FROM entries e WHERE ${LIVE}${beforeId ? ' AND e.id < ?' : ''} ORDER BY e.id DESC LIMIT ?`;
      return this.rows(sql, ...(beforeId ? [projectId, beforeId, limit] : [projectId, limit]));
    }
    const m = this.matchSource(projectId, needleOf(search));
    const sql =
      `SELECT ${COLS} FROM ${m.from.replace(' WHERE ', ' JOIN entries e ON e.rowid = s.rid WHERE ')}` +
      `${beforeId ? ' AND e.id < ?' : ''} ORDER BY e.id DESC LIMIT ?`;
    return this.rows(sql, ...m.args, ...(beforeId ? [beforeId, limit] : [limit]));
  }
}
