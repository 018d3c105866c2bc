import Database from 'better-sqlite3';
import { EntryReads } from '../dist/db/sqlite/entry-reads.js';
const db = new Database(process.argv[2]);
db.pragma('cache_size = -65536');
if (process.env.MMAP) db.pragma('mmap_size=' + process.env.MMAP);
const r = new EntryReads(db);
const t = (label, fn, n = 7) => {
  const xs = []; let res;
  for (let i = 0; i < n; i++) { const a = process.hrtime.bigint(); res = fn(); xs.push(Number(process.hrtime.bigint() - a) / 1e6); }
  xs.sort((a, b) => a - b);
  console.log(label.padEnd(28), xs[Math.floor(n / 2)].toFixed(2), 'ms', res.total, res.rows.length, res.rows[0]?.email);
};
const P = 'prj_1';
console.log(db.prepare('select * from search_state').all());
t('page1', () => r.list(P, { offset: 0, limit: 20 }));
t('mid', () => r.list(P, { offset: 500000, limit: 20 }));
t('p 30000', () => r.list(P, { offset: 600000, limit: 20 }));
t('last', () => r.list(P, { offset: 999990, limit: 20 }));
for (const s of ['john', 'smith', 'gmail', 'smith.12345', 'jo', 'q', 'zq', 'ö', '%', 'Ö']) t('search ' + s, () => r.list(P, { offset: 0, limit: 20 }, s), 3);
