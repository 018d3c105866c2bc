import Database from 'better-sqlite3';
const db = new Database(process.argv[2], { readonly: true });
if (process.env.MMAP) db.pragma('mmap_size = ' + process.env.MMAP);
if (process.env.CACHE) db.pragma('cache_size = ' + process.env.CACHE);
const t = (label, fn, n = 5) => {
  const xs = [];
  let r;
  for (let i = 0; i < n; i++) { const a = process.hrtime.bigint(); r = fn(); xs.push(Number(process.hrtime.bigint() - a) / 1e6); }
  xs.sort((a, b) => a - b);
  console.log(label.padEnd(40), xs[Math.floor(n / 2)].toFixed(2), 'ms', JSON.stringify(r)?.slice(0, 80));
};
const P = 'prj_1';
const q = (s) => db.prepare(s);
t('count(*) live', () => q('SELECT count(*) n FROM entries WHERE project_id=? AND deleted_at IS NULL').get(P));
t('counter', () => q('SELECT live FROM entry_counts WHERE project_id=?').get(P));
t('page1 select*', () => q('SELECT * FROM entries WHERE project_id=? AND deleted_at IS NULL ORDER BY id DESC LIMIT 20 OFFSET 0').all(P).length);
t('mid page select* off 500k', () => q('SELECT * FROM entries WHERE project_id=? AND deleted_at IS NULL ORDER BY id DESC LIMIT 20 OFFSET 500000').all(P).length);
t('mid page id-only off 500k', () => q('SELECT id FROM entries WHERE project_id=? AND deleted_at IS NULL ORDER BY id DESC LIMIT 20 OFFSET 500000').all(P).length);
t('last page id-only off 999980', () => q('SELECT id FROM entries WHERE project_id=? AND deleted_at IS NULL ORDER BY id DESC LIMIT 20 OFFSET 999980').all(P).length);
for (const needle of ['john', 'smith', 'gmail', 'a.smith12345', 'zzq']) {
  const ph = `"${needle}"`;
  t(`fts count ${needle}`, () => q('SELECT count(*) n FROM entries_fts f JOIN entries e ON e.rowid=f.rowid WHERE entries_fts MATCH ? AND e.project_id=? AND e.deleted_at IS NULL').get(ph, P));
  t(`fts count nojoin ${needle}`, () => q('SELECT count(*) n FROM entries_fts WHERE entries_fts MATCH ?').get(ph));
  t(`fts page ${needle}`, () => q('SELECT e.id FROM entries_fts f JOIN entries e ON e.rowid=f.rowid WHERE entries_fts MATCH ? AND e.project_id=? AND e.deleted_at IS NULL ORDER BY e.id DESC LIMIT 20').all(ph, P).length);
}
for (const needle of ['jo', 'q', 'zq', 'é']) {
  const pat = `%${needle}%`;
  t(`like count ${needle}`, () => q(`SELECT count(*) n FROM entries WHERE project_id=? AND deleted_at IS NULL AND (email_norm LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\')`).get(P, pat, pat), 3);
  t(`like count notindexed ${needle}`, () => q(`SELECT count(*) n FROM entries NOT INDEXED WHERE project_id=? AND deleted_at IS NULL AND (email_norm LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\')`).get(P, pat, pat), 3);
  t(`like page ${needle}`, () => q(`SELECT id FROM entries WHERE project_id=? AND deleted_at IS NULL AND (email_norm LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\') ORDER BY id DESC LIMIT 20`).all(P, pat, pat).length, 3);
}
