// Compares gen.mts's lexeme approximation with PostgreSQL's to_tsvector('simple', text) (tsvector_to_array) on a
// sample of posts. Needs a PostgreSQL on /tmp/alab-pg port 55432 (the embedded binaries of /work/main).
import { readFileSync } from 'node:fs';
import pg from '/work/main/node_modules/pg/lib/index.js';
const n = Number(process.argv[2] ?? 20000);
const lines = readFileSync('/work/wt/analytics-lab/data/100000-posts.tsv', 'utf8').split('\n').slice(0, n);
const client = new pg.Client({ host: '/tmp/alab-pg', port: 55432, user: 'postgres', database: 'postgres' });
await client.connect();
let same = 0, missing = 0, extra = 0, total = 0;
const missEx = new Map(), extraEx = new Map();
for (let i = 0; i < lines.length; i += 2000) {
  const batch = lines.slice(i, i + 2000).map((l) => l.split('\t'));
  const { rows } = await client.query(`SELECT tsvector_to_array(to_tsvector('simple', t)) AS a FROM unnest($1::text[]) WITH ORDINALITY u(t, o) ORDER BY o`, [batch.map((c) => c[13])]);
  rows.forEach((r, j) => {
    const mine = new Set(batch[j][12].split(' ').filter((w) => w && !w.startsWith('\x01') && !w.startsWith('\x02')));
    const theirs = new Set(r.a);
    total += 1;
    let ok = true;
    for (const w of theirs) if (!mine.has(w)) { ok = false; missing += 1; missEx.set(w, (missEx.get(w) ?? 0) + 1); }
    for (const w of mine) if (!theirs.has(w)) { ok = false; extra += 1; extraEx.set(w, (extraEx.get(w) ?? 0) + 1); }
    if (ok) same += 1;
  });
}
const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 12);
console.log(JSON.stringify({ posts: total, identical: same, identicalPct: (100 * same / total).toFixed(2), lexemesMissing: missing, lexemesExtra: extra, topMissing: top(missEx), topExtra: top(extraEx) }, null, 1));
await client.end();
