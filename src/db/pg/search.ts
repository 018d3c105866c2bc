// Substring search on PostgreSQL: the ids of a project's live entries whose email or name contains the
// needle, from `entry_search` (migrations/pg/0008_search_table.sql) and its trigram indexes.
import { sql, type SQL } from 'drizzle-orm';
import { fold } from '../fold.js';
import { escapeLike } from '../store.js';

/**
 * `SELECT id FROM entry_search …` for `search` (the fold of src/db/fold.ts). PostgreSQL's lower() also
 * folds İ to i: the first LIKE on the name (the one the trigram index answers) does the same, the second
 * tells İ apart as SQLite does.
 */
export function searchIds(projectId: string, search: string): SQL {
  const folded = fold(search);
  const pattern = `%${escapeLike(folded.replaceAll('İ', 'i'))}%`;
  const exact = `%${escapeLike(folded.replaceAll('İ', '\u0001'))}%`;
  return sql`SELECT entry_id AS id FROM entry_search
    WHERE project_id = ${projectId} AND live
      AND (email_norm LIKE ${pattern} ESCAPE '\\' OR (lower(name) LIKE ${pattern} ESCAPE '\\'
        AND lower(replace(name, 'İ', chr(1))) LIKE ${exact} ESCAPE '\\'))`;
}
