// DuckDB (@duckdb/node-api) side: the same layout, load and mix as ch.mjs.
// node duck.mjs <srcN> <K> [--runs 7] [--keep] [--mem 3GB]
//   posts (inserted in id = time order; token hashes UBIGINT[]) + tok (tok, ts, post) inserted ORDER BY tok, ts; file-backed.
import { existsSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { DuckDBInstance } from './duckdb-try/node_modules/@duckdb/node-api/lib/index.js';
import { END, START, ZONE, Q15, QUERIES, compile, tokensOf, load, rssMiB } from './mix.mjs';
import { TAG } from './mix.mjs';

export async function openDuck({ srcN, K = 1, TI = false, KEEP = false, MEM = null }) {
const N = srcN * K;
const variant = 'duckdb' + (TAG ? `-${TAG}` : '');
const file = `${process.env.LAB_DIR ?? "."}/store/${variant}-${N}.duckdb`;
const log = (...a) => console.log(`[${variant} ${N}] ${new Date().toISOString().slice(11, 19)} load(${load()}) rss ${rssMiB()}MiB`, ...a);

const reuse = KEEP && existsSync(file);
if (!reuse) { rmSync(file, { force: true }); rmSync(`${file}.wal`, { force: true }); }
const inst = await DuckDBInstance.create(file, MEM ? { memory_limit: MEM } : {});
const con = await inst.connect();
const q = (sql) => con.run(sql);
const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();

const SRC = `${process.env.LAB_DIR ?? "."}/data/${srcN}${TAG}-posts.tsv`;
const PROF = `${process.env.LAB_DIR ?? "."}/data/${srcN}-profiles.tsv`;
const NP = Number(execSync(`wc -l < ${PROF}`).toString().trim());

async function loadStore() {
  const t0 = performance.now();
  await q(`CREATE TEMP TABLE src AS SELECT * FROM read_csv('${SRC}', delim = '\t', header = false, quote = '', escape = '',
    columns = {'oid': 'UBIGINT', 'ts': 'BIGINT', 'author_id': 'UINTEGER', 'platform': 'VARCHAR', 'lang': 'VARCHAR', 'kind': 'VARCHAR',
      'media': 'VARCHAR', 'likes': 'UINTEGER', 'comments': 'UINTEGER', 'shares': 'UINTEGER', 'sentiment': 'FLOAT', 'label': 'VARCHAR',
      'words': 'VARCHAR', 'text': 'VARCHAR'})`);
  log(`src loaded ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await q(`CREATE TABLE posts AS
    SELECT (row_number() OVER (ORDER BY ts2, oid, k))::UBIGINT AS id, ts2 AS ts, (ts2 // ${Q15})::UINTEGER AS q, author2 AS author_id,
      platform, lang, kind, media, likes, comments, shares, (likes + comments + shares)::UINTEGER AS engagement, sentiment,
      (CASE label WHEN 'positive' THEN 1 WHEN 'negative' THEN -1 ELSE 0 END)::TINYINT AS label,
      list_transform(list_filter(string_split(words, ' '), w -> w <> ''), w -> hash(w)) AS toks, text
    FROM (SELECT *, (CASE WHEN k = 0 THEN ts ELSE least(greatest(ts + ((oid * 7919 + k * 104729) % 86400000)::BIGINT - 43200000, ${START}), ${END - 1}) END)::BIGINT AS ts2,
      (author_id + k * ${NP})::UINTEGER AS author2 FROM src, range(${K}) r(k))
    ORDER BY id`);
  log(`posts loaded ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await q(`DROP TABLE src`);
  await q(`CREATE TABLE tok AS SELECT unnest(toks) AS tok, ts, id AS post FROM posts ORDER BY tok, ts`);
  log(`tok loaded ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await q(`CREATE TABLE profiles AS SELECT (id + k * ${NP})::UINTEGER AS id, followers::UBIGINT AS followers FROM read_csv('${PROF}', delim = '\t', header = false, quote = '', escape = '',
    columns = {'id': 'UINTEGER', 'platform': 'VARCHAR', 'handle': 'VARCHAR', 'followers': 'UBIGINT', 'country': 'VARCHAR'}), range(${K}) r(k) ORDER BY 1`);
  await q(`CREATE TABLE zmap AS SELECT q::UINTEGER AS q, (to_timestamp(q * 900) AT TIME ZONE '${ZONE}')::DATE AS day
    FROM range(${START / Q15 - 400}, ${END / Q15 + 400}) t(q)`);
  await q(`CHECKPOINT`);
  const loadS = (performance.now() - t0) / 1000;
  log(`loaded + checkpointed in ${loadS.toFixed(1)} s`);
  return loadS;
}

const loadS = reuse ? null : await loadStore();
const [count] = await rows(`SELECT count(*) n, min(ts) lo, max(ts) hi FROM posts`);
const sizes = await rows(`SELECT table_name, estimated_size FROM duckdb_tables() ORDER BY 1`);
const du = statSync(file).size;
log('posts', count, 'tables', sizes, 'file', du);

const H = new Map();
for (const [, node] of QUERIES)
  for (const w of tokensOf(node)) H.set(w, (await (await con.runAndReadAll('SELECT hash($1)::VARCHAR AS h', [w])).getRowObjectsJson())[0].h);

const dialect = {
  tokSet: (h, lo, hi) => `SELECT post FROM tok WHERE tok = ${h}::UBIGINT AND ts >= ${lo} AND ts < ${hi}`,
  regex: (col, re) => `regexp_matches(${col}, '${re.replace(/^\(\?i\)/, '')}', 'i')`,
  ilike: (col, s) => `${col} ILIKE '%${s}%'`,
  union: 'UNION',
};
function where(node, lo, hi) {
  const parts = [`ts >= ${lo}`, `ts < ${hi}`];
  if (!node) return parts.join(' AND ');
  const { set, cond } = compile(node, dialect, lo, hi, H);
  if (set) parts.push(`id IN (${set})`);
  if (cond) parts.push(cond);
  return parts.join(' AND ');
}

const statements = (node, days) => {
  const from = END - days * 86_400_000, pfrom = from - days * 86_400_000;
  return {
    timeline: `SELECT z.day AS day, g.platform AS platform, sum(n) AS n, sum(e) AS e, sum(pos) AS pos, sum(neu) AS neu, sum(neg) AS neg, sum(s) AS s
      FROM (SELECT q, platform, count(*) AS n, sum(engagement) AS e, count(*) FILTER (label = 1) AS pos, count(*) FILTER (label = 0) AS neu,
        count(*) FILTER (label = -1) AS neg, sum(sentiment) AS s FROM posts WHERE ${where(node, from, END)} GROUP BY q, platform) g
      JOIN zmap z ON z.q = g.q GROUP BY day, g.platform ORDER BY day, g.platform`,
    authors: `SELECT cur, sum(n) AS mentions, count(*) AS authors, sum(e) AS engagement, sum(p.followers) AS reach,
        max_by(pa.author_id, (n, e), 5) AS top
      FROM (SELECT author_id, ts >= ${from} AS cur, count(*) AS n, sum(engagement) AS e FROM posts
        WHERE ${where(node, pfrom, END)} GROUP BY author_id, cur) pa JOIN profiles p ON p.id = pa.author_id GROUP BY cur ORDER BY cur`,
    top: `SELECT id, engagement FROM posts WHERE ${where(node, from, END)} ORDER BY engagement DESC, id DESC LIMIT 5`,
  };
};


return { name: variant, N, rows, statements, info: { loadS, count, sizes, du }, close: () => con.closeSync?.() };
}
