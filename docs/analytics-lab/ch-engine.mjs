// ClickHouse (chdb) side: load the generated corpus (replicated K times for 3M/10M) and run the bench mix.
// node ch.mjs <srcN> <K> [--ti] [--runs 7] [--keep]
//   default layout: posts (ORDER BY id, ids in time order; token hashes Array(UInt64)) + tok (tok, ts, post) ORDER BY (tok, ts)
//   --ti: posts with words Array(String) and a `text` index (tokenizer = array) instead of the token table
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { Session } from './chdb-try/node_modules/chdb/index.mjs';
import { END, START, ZONE, Q15, QUERIES, compile, tokensOf, load, rssMiB } from './mix.mjs';
import { TAG } from './mix.mjs';

export async function openCh({ srcN, K = 1, TI = false, KEEP = false, MEM = null }) {
const N = srcN * K;
const variant = (TI ? 'ch-textindex' : 'ch-tokens') + (TAG ? `-${TAG}` : '');
const dir = `${process.env.LAB_DIR ?? "."}/store/${variant}-${N}`;
const log = (...a) => console.log(`[${variant} ${N}] ${new Date().toISOString().slice(11, 19)} load(${load()}) rss ${rssMiB()}MiB`, ...a);

const reuse = KEEP && existsSync(dir);
if (!reuse) rmSync(dir, { recursive: true, force: true });
const db = new Session(dir);
const q = async (sql, format = 'JSONEachRow') => (await db.queryAsync(sql, { format })).text();
const rows = async (sql) => (await q(sql)).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

const SRC = `${process.env.LAB_DIR ?? "."}/data/${srcN}${TAG}-posts.tsv`;
const PROF = `${process.env.LAB_DIR ?? "."}/data/${srcN}-profiles.tsv`;
const NP = Number(execSync(`wc -l < ${PROF}`).toString().trim());

async function loadStore() {
  const t0 = performance.now();
  await q(`CREATE TABLE src (oid UInt64, ts Int64, author_id UInt32, platform LowCardinality(String), lang LowCardinality(String),
    kind LowCardinality(String), media LowCardinality(String), likes UInt32, comments UInt32, shares UInt32, sentiment Float32,
    label LowCardinality(String), words String, text String) ENGINE = MergeTree ORDER BY tuple()`);
  await q(`INSERT INTO src SELECT * FROM file('${SRC}', 'TSV', 'oid UInt64, ts Int64, author_id UInt32, platform String, lang String,
    kind String, media String, likes UInt32, comments UInt32, shares UInt32, sentiment Float32, label String, words String, text String')`);
  log(`src loaded ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const tokCol = TI
    ? `words Array(String), INDEX tw words TYPE text(tokenizer = array)`
    : `toks Array(UInt64)`;
  await q(`CREATE TABLE posts (id UInt64, ts Int64, q UInt32, author_id UInt32, platform LowCardinality(String),
    lang LowCardinality(String), kind LowCardinality(String), media LowCardinality(String), likes UInt32, comments UInt32,
    shares UInt32, engagement UInt32, sentiment Float32, label Int8, ${tokCol}, text String CODEC(ZSTD(3)),
    INDEX ts_mm ts TYPE minmax GRANULARITY 1) ENGINE = MergeTree ORDER BY id`);
  // K copies: author ids shifted by k × NP (new authors), times jittered by up to ±12 h (clamped to the window), ids
  // given again in time order.
  const tokExpr = TI ? `arrayFilter(w -> w != '', splitByChar(' ', words))` : `arrayMap(w -> sipHash64(w), arrayFilter(w -> w != '', splitByChar(' ', words)))`;
  await q(`INSERT INTO posts SELECT rowNumberInAllBlocks() + 1, ts2, intDiv(ts2, ${Q15}), author2, platform, lang, kind, media,
      likes, comments, shares, likes + comments + shares, sentiment, multiIf(label = 'positive', 1, label = 'negative', -1, 0),
      ${tokExpr}, text
    FROM (SELECT *, toInt64(if(k = 0, ts, least(greatest(ts + toInt64((oid * 7919 + k * 104729) % 86400000) - 43200000, toInt64(${START})), toInt64(${END - 1})))) AS ts2,
      author_id + k * ${NP} AS author2 FROM src, (SELECT number AS k FROM numbers(${K})) AS kk ORDER BY ts2, oid, k)
    SETTINGS max_insert_threads = 2`);
  log(`posts loaded ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  await q(`DROP TABLE src`);
  if (!TI) {
    await q(`CREATE TABLE tok (tok UInt64, ts Int64, post UInt64) ENGINE = MergeTree ORDER BY (tok, ts)`);
    await q(`INSERT INTO tok SELECT arrayJoin(toks), ts, id FROM posts`);
    log(`tok loaded ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  await q(`CREATE TABLE profiles (id UInt32, followers UInt64) ENGINE = MergeTree ORDER BY id`);
  await q(`INSERT INTO profiles SELECT id + k * ${NP}, followers FROM file('${PROF}', 'TSV', 'id UInt32, platform String, handle String, followers UInt64, country String') AS pf,
    (SELECT number AS k FROM numbers(${K})) AS kk`);
  await q(`CREATE TABLE zmap (q UInt32, day Date) ENGINE = MergeTree ORDER BY q`);
  await q(`INSERT INTO zmap SELECT number, toDate(toDateTime(number * 900, '${ZONE}'), '${ZONE}') FROM numbers(${START / Q15 - 400}, ${(END - START) / Q15 + 800})`);
  await q(`OPTIMIZE TABLE posts FINAL`);
  if (!TI) await q(`OPTIMIZE TABLE tok FINAL`);
  const loadS = (performance.now() - t0) / 1000;
  log(`loaded + optimized in ${loadS.toFixed(1)} s`);
  return loadS;
}

const loadS = reuse ? null : await loadStore();
// Followers by author: a Join-engine table read with joinGet (a hash table kept in memory, not rebuilt per query).
await q(`DROP TABLE IF EXISTS profiles_j`);
await q(`CREATE TABLE profiles_j (id UInt32, followers UInt64) ENGINE = Join(ANY, LEFT, id)`);
await q(`INSERT INTO profiles_j SELECT id, followers FROM profiles`);

const [count] = await rows(`SELECT count() n, min(ts) lo, max(ts) hi FROM posts`);
const parts = await rows(`SELECT table, sum(rows) rows, sum(bytes_on_disk) bytes, sum(data_uncompressed_bytes) raw FROM system.parts WHERE active AND database = currentDatabase() GROUP BY table ORDER BY table`);
const du = Number(execSync(`du -sb ${dir}`).toString().split('\t')[0]);
log('posts', count, 'parts', parts, 'du', du);

/** A string literal: quotes doubled, control characters as \\xNN escapes. */
const lit = (w) => `'${w.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/[\x00-\x1f]/g, (ch) => `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`)}'`;
// Hashes of the mix's tokens.
const H = new Map();
for (const [, node] of QUERIES)
  for (const w of tokensOf(node)) {
    if (TI) H.set(w, w);
    else H.set(w, (await rows(`SELECT toString(sipHash64(${lit(w)})) h`))[0].h);
  }

const dialect = {
  tokSet: (h, lo, hi) => `SELECT post FROM tok WHERE tok = ${h} AND ts >= ${lo} AND ts < ${hi}`,
  regex: (col, re) => `match(${col}, '${re.replace(/\\/g, '\\\\')}')`,
  ilike: (col, s) => `positionCaseInsensitiveUTF8(${col}, '${s}') > 0`,
  union: 'UNION DISTINCT',
};

/** --ti: the tree as one condition on posts (has() over the indexed words). */
function tiCond(node) {
  switch (node.t) {
    case 'term': return `has(words, ${lit(node.w)})`;
    case 'phrase': return `(${node.ws.map((w) => `has(words, ${lit(w)})`).join(' AND ')} AND ${dialect.regex('text', node.re)})`;
    case 'sub': return `(${node.grams.map((g) => `has(words, ${lit(g)})`).join(' AND ')} AND ${dialect.ilike('text', node.like)})`;
    case 'field': return `(platform = '${node.platform}' AND lang = '${node.lang}')`;
    case 'or': return `(${node.ops.map(tiCond).join(' OR ')})`;
    case 'and': return `(${node.ops.map(tiCond).join(' AND ')})`;
    case 'not': return `NOT ${tiCond(node.op)}`;
  }
}
/**
 * The WHERE clause (with its keyword). A text recheck (phrase regex, CJK substring) goes in WHERE after an explicit
 * PREWHERE of the range and the token set: left to itself ClickHouse moved the recheck into PREWHERE and read the text
 * of every post in the range (phrase 30 days on 10M: 533–2,508 ms as benched, 259–441 ms with this; probe2-ch.mjs).
 */
function where(node, lo, hi) {
  const parts = [`ts >= ${lo}`, `ts < ${hi}`];
  if (!node) return `WHERE ${parts.join(' AND ')}`;
  if (TI) return `WHERE ${[...parts, tiCond(node)].join(' AND ')}`;
  const { set, cond } = compile(node, dialect, lo, hi, H);
  if (set) parts.push(`id IN (${set})`);
  if (cond && set && EXPLICIT_PREWHERE) return `PREWHERE ${parts.join(' AND ')} WHERE ${cond}`;
  if (cond) parts.push(cond);
  return `WHERE ${parts.join(' AND ')}`;
}

// The primary-key analysis of `id IN (set)` costs more than it saves here (the matches are spread over every granule
// of the range): measured 2–4× slower with it on 1M posts (probe-ch.mjs).
const CHSET = 'SETTINGS use_index_for_in_with_subqueries = 0';
const EXPLICIT_PREWHERE = process.env.CH_NO_PREWHERE !== '1';
const statements = (node, days) => {
  const from = END - days * 86_400_000, pfrom = from - days * 86_400_000;
  return {
    timeline: `SELECT z.day AS day, g.platform AS platform, sum(n) AS n, sum(e) AS e, sum(pos) AS pos, sum(neu) AS neu, sum(neg) AS neg, sum(s) AS s
      FROM (SELECT q, platform, count() AS n, sum(engagement) AS e, countIf(label = 1) AS pos, countIf(label = 0) AS neu,
        countIf(label = -1) AS neg, sum(sentiment) AS s FROM posts ${where(node, from, END)} GROUP BY q, platform) g
      JOIN zmap z ON z.q = g.q GROUP BY day, platform ORDER BY day, platform ${CHSET}`,
    authors: `SELECT cur, sum(n) AS mentions, count() AS authors, sum(e) AS engagement,
        sum(joinGet('profiles_j', 'followers', author_id)) AS reach, groupArraySorted(5)((-n, -e, author_id)) AS top
      FROM (SELECT author_id, ts >= ${from} AS cur, count() AS n, sum(engagement) AS e FROM posts
        ${where(node, pfrom, END)} GROUP BY author_id, cur) GROUP BY cur ORDER BY cur ${CHSET}`,
    top: `SELECT id, engagement FROM posts ${where(node, from, END)} ORDER BY engagement DESC, id DESC LIMIT 5 ${CHSET}`,
  };
};


return { name: variant, N, rows, statements, info: { loadS, count, parts, du }, syncRows: (sql) => db.query(sql, 'JSONEachRow'), close: () => db.close() };
}
