// Synthetic waitlist entries for the benchmark: realistic widths (emails, names with some non-ASCII,
// user agents, small metadata), ids time-sortable like the server's, oldest first.
import { randomBytes } from 'node:crypto';

const FIRST = [
  'James',
  'Mary',
  'John',
  'Patricia',
  'Robert',
  'Jennifer',
  'Michael',
  'Linda',
  'William',
  'Elizabeth',
  'David',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Charles',
  'Karen',
  'Chris',
  'Nancy',
  'Daniel',
  'Lisa',
  'Matthew',
  'Betty',
  'Anthony',
  'Margaret',
  'Mark',
  'Sandra',
  'Zoë',
  'José',
  'Åsa',
  'Łukasz',
  'Renée',
  'Søren',
  'Chloé',
  'Jürgen',
  'Ana',
  'Yuki',
  'Wei',
  'Priya',
  'Omar',
  'Fatima',
  'Ivan',
  'Olga',
  'Lars',
  'Ingrid',
  'Pablo',
  'Lucía',
  'Mateo',
  'Aiko',
  'Kofi',
  'Amara',
  'Noah',
  'Emma',
  'Liam',
  'Olivia',
  'Elena',
  'Hugo',
];
const LAST = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Müller',
  'Schröder',
  'Nørgaard',
  'Dubois',
  'Rossi',
  'Kowalski',
  'Novák',
  'Tanaka',
  'Sato',
  'Kim',
  'Park',
  'Nguyen',
  'Chen',
  'Wang',
  'Singh',
  'Patel',
  'Khan',
  'Ivanov',
  'Silva',
  'Santos',
  'Fischer',
  'Weber',
  'Meyer',
  'Wagner',
  'Becker',
  'Schulz',
  'Hoffmann',
  'Andersson',
  'Larsen',
  'Virtanen',
  'Costa',
  'Ferreira',
  'Okafor',
  'Mensah',
  'Haddad',
  'Cohen',
  'Levi',
  'Yilmaz',
  'Demir',
  'Kaya',
];
const DOMAINS = ['gmail.com', 'yahoo.com', 'outlook.com', 'proton.me', 'icloud.com', 'example.org', 'fastmail.com'];
const SOURCES = ['landing-page', 'hero-form', 'footer', 'twitter', 'newsletter', 'producthunt'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'IN', 'BR', 'JP', 'CA', null];
const UA = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const B32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function ulid(ms, rand) {
  let t = '';
  for (let i = 0; i < 10; i++) {
    t = B32[ms % 32] + t;
    ms = Math.floor(ms / 32);
  }
  return t + rand;
}

const ascii = (s) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace('ł', 'l')
    .replace('Ł', 'L')
    .replace('ø', 'o')
    .toLowerCase();

/**
 * Yields `n` entry rows (column names as in the entries table) for one project, oldest first, waiting
 * in join order as the server leaves them: ordinal (and queue key k) from `firstOrdinal` up, which the
 * seeders reserve in entry_ordinals first (with every k equal, one position bucket would hold them all
 * and each position would count a million rows).
 */
export function* entries(projectId, n, { now = Date.now(), spanDays = 60, firstOrdinal = 1 } = {}) {
  const start = now - spanDays * 86_400_000;
  const step = Math.max(1, Math.floor((spanDays * 86_400_000) / n));
  const rnd = randomBytes(n * 2);
  const salt = [...randomBytes(4)].map((b) => B32[b % 32]).join('');
  for (let i = 0; i < n; i++) {
    const first = FIRST[(i * 7 + rnd[i]) % FIRST.length];
    const last = LAST[(i * 13 + rnd[n + i]) % LAST.length];
    const email = `${ascii(first)}.${ascii(last)}${i}@${DOMAINS[i % DOMAINS.length]}`;
    const at = start + i * step;
    const tail =
      salt +
      i
        .toString(32)
        .toUpperCase()
        .padStart(12, '0')
        .replace(/[ILOU]/g, 'X');
    yield {
      id: `ent_${ulid(at, tail)}`,
      project_id: projectId,
      email,
      email_norm: email,
      name: i % 10 === 9 ? null : `${first} ${last}`,
      source: SOURCES[i % SOURCES.length],
      metadata: i % 3 === 0 ? '{"plan":"pro","ref":"spring-launch"}' : '{}',
      ip: `203.0.113.${i % 250}`,
      country: COUNTRIES[i % COUNTRIES.length],
      user_agent: UA,
      created_at: at,
      updated_at: at,
      deleted_at: null,
      status: 'waiting',
      ordinal: firstOrdinal + i,
      k: firstOrdinal + i,
    };
  }
}

export const COLUMNS = [
  'id',
  'project_id',
  'email',
  'email_norm',
  'name',
  'source',
  'metadata',
  'ip',
  'country',
  'user_agent',
  'created_at',
  'updated_at',
  'deleted_at',
  'status',
  'ordinal',
  'k',
];

// Reserves `n` join ordinals of the project as the server does; returns the first.
const RESERVE = `INSERT INTO entry_ordinals (project_id, last) VALUES ($1, $2)
  ON CONFLICT (project_id) DO UPDATE SET last = entry_ordinals.last + excluded.last RETURNING last`;

/** Bulk-inserts `n` entries straight into a SQLite database file (triggers keep the index and counts). */
export async function seedSqlite(file, projectId, n, opts = {}) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -200000');
  const last = Number(db.prepare(RESERVE.replace(/\$\d/g, '?')).pluck().get(projectId, n));
  opts = { ...opts, firstOrdinal: last - n + 1 };
  const stmt = db.prepare(`INSERT INTO entries (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((c) => '@' + c).join(', ')})`);
  const insertMany = db.transaction((rows) => {
    for (const r of rows) stmt.run(r);
  });
  let batch = [];
  for (const r of entries(projectId, n, opts)) {
    batch.push(r);
    if (batch.length === 50_000) {
      insertMany(batch);
      batch = [];
    }
  }
  if (batch.length) insertMany(batch);
  indexQueued(db);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** A bulk load indexes its rows for search in one go (the server would otherwise do it in runs at start-up). */
export function indexQueued(db) {
  db.transaction(() => {
    db.exec(`INSERT INTO entries_fts(rowid, email, name)
      SELECT s.sk, s.email, s.name FROM entries_search s WHERE s.sk IN (SELECT sk FROM fts_pending)`);
    db.exec('DELETE FROM fts_pending');
  })();
}

/** Bulk-inserts `n` entries into a PostgreSQL database, casting to whatever column types it uses. */
export async function seedPg(url, projectId, n, opts = {}) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: cols } = await client.query(
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'entries' AND table_schema = current_schema()`,
    );
    const typeOf = Object.fromEntries(cols.map((c) => [c.column_name, c.data_type]));
    const expr = (c, i) => {
      const t = typeOf[c] ?? 'text';
      if (t.startsWith('timestamp')) return `to_timestamp((x.c${i})::bigint / 1000.0)`;
      if (t === 'text' || t.startsWith('character')) return `x.c${i}`;
      return `(x.c${i})::${t === 'USER-DEFINED' ? 'text' : t}`;
    };
    const { rows: reserved } = await client.query(RESERVE, [projectId, n]);
    opts = { ...opts, firstOrdinal: Number(reserved[0].last) - n + 1 };
    const arrays = COLUMNS.map((_, i) => `$${i + 1}::text[]`).join(', ');
    // The rows carry their join ordinals (k = ordinal, no referrals), reserved above from the project's
    // counter as the server does, so positions and the queue buckets are those of real joins.
    const sql = `INSERT INTO entries (${COLUMNS.join(', ')})
      SELECT ${COLUMNS.map(expr).join(', ')}
      FROM unnest(${arrays}) AS x(${COLUMNS.map((_, i) => `c${i}`).join(', ')})`;
    /** @type {(string | null)[][]} */
    let batch = COLUMNS.map(() => []);
    const flush = async () => {
      if (batch[0].length) await client.query(sql, batch);
      batch = COLUMNS.map(() => []);
    };
    for (const r of entries(projectId, n, opts)) {
      COLUMNS.forEach((c, i) => {
        batch[i].push(r[c] === null ? null : String(r[c]));
      });
      if (batch[0].length === 10_000) await flush();
    }
    await flush();
    // As autovacuum would have long since left a table that grew to this size: statistics, and the
    // visibility map that index-only scans rely on. Without it autovacuum may start on the fresh rows
    // while the reads are being timed.
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}
