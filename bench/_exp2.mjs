import Database from 'better-sqlite3';
const db = new Database(process.argv[2], { readonly: true });
db.pragma('mmap_size = 2000000000');
const t = (label, fn, n = 5) => {
  const xs = []; let r;
  for (let i = 0; i < n; i++) { const a = process.hrtime.bigint(); r = fn(); xs.push(Number(process.hrtime.bigint() - a) / 1e6); }
  xs.sort((a, b) => a - b);
  console.log(label.padEnd(40), xs[Math.floor(n / 2)].toFixed(2), 'ms', JSON.stringify(r)?.slice(0, 80));
};
const P = 'prj_1'; const q = (s) => db.prepare(s);
for (const needle of ['john', 'smith', 'gmail']) {
  const ph = `"${needle}"`;
  t(`window ${needle}`, () => q('SELECT e.id, count(*) OVER () n FROM entries_fts f JOIN entries e ON e.rowid=f.rowid WHERE entries_fts MATCH ? AND e.project_id=? AND e.deleted_at IS NULL ORDER BY e.id DESC LIMIT 20').all(ph, P)[0]);
  t(`pluck all ${needle}`, () => q('SELECT e.id FROM entries_fts f JOIN entries e ON e.rowid=f.rowid WHERE entries_fts MATCH ? AND e.project_id=? AND e.deleted_at IS NULL').pluck().all(ph, P).length);
  t(`rowid page ${needle}`, () => q('SELECT e.id FROM entries_fts f JOIN entries e ON e.rowid=f.rowid WHERE entries_fts MATCH ? AND e.project_id=? AND e.deleted_at IS NULL ORDER BY f.rowid DESC LIMIT 20').all(ph, P).length);
  t(`count proj via index ${needle}`, () => q('SELECT count(*) FROM entries_fts f WHERE entries_fts MATCH ? AND f.rowid IN (SELECT rowid FROM entries WHERE project_id=? AND deleted_at IS NULL)').get(ph, P));
}
