// Summarises a V8 .cpuprofile (node --cpu-prof): top functions by self time, and the share of broad
// categories (SQLite calls, JSON, crypto, validation, HTTP, GC/idle). Used for docs/performance.md:
//   BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" node bench/run.mjs --join-only
//   node bench/prof-summary.mjs /tmp/prof/CPU.*.cpuprofile [--top 25] [--inclusive REGEX]
// --inclusive REGEX: also the inclusive time (the frame and everything it called, in seconds) of each
// function whose label (`name file:line`) matches, e.g. --inclusive 'dist/' for the server's own code.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, inclusive: { type: 'string' } },
});
const prof = JSON.parse(readFileSync(positionals[0], 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
for (let i = 0; i < prof.samples.length; i++) {
  const dt = prof.timeDeltas[i] ?? 0;
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + dt);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const label = (n) => {
  const f = n.callFrame;
  const file = f.url ? f.url.replace(/^.*\/(node_modules\/|dist\/|node:)/, '$1') : '';
  return `${f.functionName || '(anonymous)'} ${file}${f.url ? ':' + (f.lineNumber + 1) : ''}`;
};
const fn = new Map();
for (const [id, t] of self) {
  const k = label(byId.get(id));
  fn.set(k, (fn.get(k) ?? 0) + t);
}
const pct = (t) => ((100 * t) / total).toFixed(1).padStart(5) + '%';
const active = total - (fn.get('(idle) ') ?? 0);
console.log(`total ${(total / 1e6).toFixed(1)} s sampled, ${(active / 1e6).toFixed(1)} s not idle`);
console.log('\ntop self time:');
for (const [k, t] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) console.log(`${pct(t)}  ${k}`);

// Categories: walk up from each sampled node to the first frame that names a category.
/** @type {[string, (f: { functionName: string; url: string }) => boolean][]} */
const cats = [
  ['idle', (f) => f.functionName === '(idle)'],
  ['GC', (f) => f.functionName === '(garbage collector)'],
  [
    'SQLite (better-sqlite3 run/get/all/transaction)',
    (f) => /better-sqlite3/.test(f.url) || (/^(run|get|all|iterate|exec|pragma)$/.test(f.functionName) && f.url === ''),
  ],
  ['bcrypt / key check', (f) => /bcrypt|keys\.js/.test(f.url)],
  ['crypto (ids, tokens, sha256)', (f) => /crypto|ids\.js/.test(f.url) || /randomBytes|createHash|digest/.test(f.functionName)],
  ['validation (zod)', (f) => /zod/.test(f.url)],
  ['JSON parse/stringify', (f) => /^(parse|stringify)$/.test(f.functionName) && f.url === ''],
  ['HTTP (node:http, net, polka)', (f) => /node:(_http|http|net|stream|internal\/streams)|polka|trouter|@polka/.test(f.url)],
  ['app code (dist/)', (f) => /\/dist\//.test(f.url)],
];
const catT = new Map();
for (const [id, t] of self) {
  const n = byId.get(id);
  let cat = 'other (node internals, program)';
  for (let cur = n; cur; cur = byId.get(parent.get(cur.id))) {
    const hit = cats.find(([, test]) => test(cur.callFrame));
    if (hit) {
      cat = hit[0];
      break;
    }
  }
  catT.set(cat, (catT.get(cat) ?? 0) + t);
}
console.log('\nby category (self time of a frame goes to the nearest categorised frame at or above it):');
for (const [k, t] of [...catT].sort((a, b) => b[1] - a[1])) console.log(`${pct(t)}  ${k}`);

if (values.inclusive) {
  // Each sample counts once for every distinct function on its stack (recursion counted once).
  const re = new RegExp(values.inclusive);
  const incl = new Map();
  for (const [id, t] of self) {
    const seen = new Set();
    for (let cur = byId.get(id); cur; cur = byId.get(parent.get(cur.id))) {
      const k = label(cur);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + t);
    }
  }
  console.log(`\ninclusive time, s (functions matching ${re}):`);
  const rows = [...incl].filter(([k]) => re.test(k)).sort((a, b) => b[1] - a[1]);
  for (const [k, t] of rows.slice(0, Number(values.top))) console.log(`${(t / 1e6).toFixed(3).padStart(8)}  ${k}`);
}
