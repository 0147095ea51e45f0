// Times statement variants on a ch store: node probe-ch.mjs <dir> ; edits in VARIANTS below.
import { Session } from './chdb-try/node_modules/chdb/index.mjs';
const db = new Session(process.argv[2]);
const run = async (sql) => { const t = performance.now(); const r = await db.queryAsync(sql, { format: 'JSONEachRow' }); return [performance.now() - t, r.rowsRead, r.bytesRead]; };
const h = JSON.parse((await db.queryAsync("SELECT toString(sipHash64('nova')) h", { format: 'JSONEachRow' })).text()).h;
const DAYS = Number(process.argv[3] ?? 30);
const END = 1793491200000, from = END - DAYS * 86400000, pfrom = from - DAYS * 86400000;
const set = `SELECT post FROM tok WHERE tok = ${h} AND ts >= ${pfrom} AND ts < ${END}`;
const V = {
  setOnly: `SELECT count() FROM (${set})`,
  countIn: `SELECT count() FROM posts WHERE ts >= ${pfrom} AND ts < ${END} AND id IN (${set})`,
  groupIn: `SELECT author_id, ts >= ${from} AS cur, count() n, sum(engagement) e FROM posts WHERE ts >= ${pfrom} AND ts < ${END} AND id IN (${set}) GROUP BY author_id, cur FORMAT Null`,
  authors: `SELECT cur, sum(n), count(), sum(e), sum(joinGet('profiles_j', 'followers', author_id)), groupArraySorted(5)((-n, -e, author_id)) FROM (SELECT author_id, ts >= ${from} AS cur, count() n, sum(engagement) e FROM posts WHERE ts >= ${pfrom} AND ts < ${END} AND id IN (${set}) GROUP BY author_id, cur) GROUP BY cur`,
  authorsNoJoinGet: `SELECT cur, sum(n), count(), sum(e), groupArraySorted(5)((-n, -e, author_id)) FROM (SELECT author_id, ts >= ${from} AS cur, count() n, sum(engagement) e FROM posts WHERE ts >= ${pfrom} AND ts < ${END} AND id IN (${set}) GROUP BY author_id, cur) GROUP BY cur`,
  countInNoPK: `SELECT count() FROM posts WHERE ts >= ${pfrom} AND ts < ${END} AND id IN (${set}) SETTINGS use_index_for_in_with_subqueries = 0`,
  authorsNoPK: `SELECT cur, sum(n), count(), sum(e), sum(joinGet('profiles_j', 'followers', author_id)), groupArraySorted(5)((-n, -e, author_id)) FROM (SELECT author_id, ts >= ${from} AS cur, count() n, sum(engagement) e FROM posts WHERE ts >= ${pfrom} AND ts < ${END} AND id IN (${set}) GROUP BY author_id, cur) GROUP BY cur SETTINGS use_index_for_in_with_subqueries = 0`,
  groupJoin: `SELECT p.author_id, p.ts >= ${from} AS cur, count() n, sum(p.engagement) e FROM (${set}) s JOIN posts p ON p.id = s.post WHERE p.ts >= ${pfrom} AND p.ts < ${END} GROUP BY p.author_id, cur FORMAT Null`,
  groupInNoPK: `SELECT author_id, ts >= ${from} AS cur, count() n, sum(engagement) e FROM posts WHERE ts >= ${pfrom} AND ts < ${END} AND id IN (${set}) GROUP BY author_id, cur FORMAT Null SETTINGS use_index_for_in_with_subqueries = 0`,
};
const exists = (await db.queryAsync("SELECT count() c FROM system.tables WHERE name = 'profiles_j'", { format: 'JSONEachRow' })).text();
if (!exists.includes('"1"') && !exists.includes(':1')) { await db.queryAsync('CREATE TABLE profiles_j (id UInt32, followers UInt64) ENGINE = Join(ANY, LEFT, id)'); await db.queryAsync('INSERT INTO profiles_j SELECT id, followers FROM profiles'); }
for (const [k, sql] of Object.entries(V)) {
  const t = [];
  for (let i = 0; i < 4; i++) t.push(await run(sql));
  console.log(k.padEnd(18), t.map((x) => x[0].toFixed(0)).join(' '), 'ms; rows read', t[0][1], 'bytes', t[0][2]);
}
db.close();
