// Substring search on PostgreSQL: the ids of a project's live entries whose email or name contains the
// needle, from `entry_search` (migrations/pg/0008_search_table.sql) and its trigram indexes.
import { sql, type SQL } from 'drizzle-orm';
import { fold } from '../fold.js';
import { escapeLike } from '../store.js';

/**
 * `SELECT id FROM entry_search …` for `search` (the fold of src/db/fold.ts). PostgreSQL's lower() also
 * folds İ to i: the first LIKE on the name (the one the trigram index answers) does the same, the second
 * tells İ apart as SQLite does. The email's normal form (normEmail) has İ lower-cased by JavaScript, to
 * i + U+0307: an İ of the needle is looked for as that there, not as a plain i (which every address with
 * an i has).
 */
export function searchIds(projectId: string, search: string): SQL {
  const folded = fold(search);
  const email = `%${escapeLike(folded.replaceAll('İ', 'i\u0307'))}%`;
  const pattern = `%${escapeLike(folded.replaceAll('İ', 'i'))}%`;
  const exact = `%${escapeLike(folded.replaceAll('İ', '\u0001'))}%`;
  return sql`SELECT entry_id AS id FROM entry_search
    WHERE project_id = ${projectId} AND live
      AND (email_norm LIKE ${email} ESCAPE '\\' OR (lower(name) LIKE ${pattern} ESCAPE '\\'
        AND lower(replace(name, 'İ', chr(1))) LIKE ${exact} ESCAPE '\\'))`;
}
