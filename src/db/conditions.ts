// WHERE conditions both dialects' stores build the same way. drizzle's operators (and, eq, isNull) are
// dialect-neutral; only the table objects differ (src/db/sqlite/schema.ts, src/db/pg/schema.ts).
import { and, type Column, eq, isNull } from 'drizzle-orm';

/** The columns of api_keys these conditions read. */
interface KeyColumns {
  id: Column;
  projectId: Column;
  revokedAt: Column;
}

/** The project's keys that are not revoked. */
export const liveKeys = (t: KeyColumns, projectId: string) => and(eq(t.projectId, projectId), isNull(t.revokedAt));

/** One key of the project, if it is not revoked. */
export const liveKey = (t: KeyColumns, projectId: string, keyId: string) =>
  and(eq(t.projectId, projectId), eq(t.id, keyId), isNull(t.revokedAt));
