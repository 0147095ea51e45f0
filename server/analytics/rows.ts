// What the store holds of PostgreSQL's rows, read the same way by a rebuild (every row, in one snapshot) and by the
// change feed's applier (the rows of the posts and profiles that changed): the SELECTs that shape them, how they reach
// the store (the posts as JSON lines that PostgreSQL's COPY writes to a file and the store reads, the profiles in the
// INSERT), and the token table derived from the loaded posts.
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { AnalyticsStore } from './store';
import { FIELD_TOKEN_MARKS, LOWERED_TEXT, SAMPLE_HASH, SAMPLED_COLUMNS, TOKEN_POST_COLUMNS } from './layout';

/** profileRowsSql's columns, in its order. */
export const PROFILE_ROW_COLUMNS = [
  'id',
  'platform',
  'handle',
  'lhandle',
  'followers',
  'country',
  'verified',
] as const;

/** The profiles' rows, for `WHERE condition` over `profiles`. lhandle: author: compares PostgreSQL's lower(). */
export const profileRowsSql = (condition = 'true') =>
  `SELECT id::text AS id, platform, handle, lower(handle) AS lhandle, followers, coalesce(country, '') AS country,
    verified
  FROM profiles WHERE ${condition}`;

/**
 * The posts' rows, for `WHERE condition` over `posts` (read as JSON lines: postLinesSql). Time in whole ms, rounded
 * down: then `ts < to` and `ts >= from` (ms bounds) agree with PostgreSQL's microseconds. `words` are the post's own
 * lexemes and `pos` their positions, in the tsvector's order (unnest(search): at most 256 positions a lexeme, none past
 * 16383, as PostgreSQL keeps them). `ltext`: PostgreSQL's lower(text) (what ILIKE compares, by the database's
 * collation) when it differs from lowering the ASCII letters alone, null otherwise; the store computes the post's
 * grams from it (post_text_grams's, what substring terms are narrowed by: query/scripts.ts's postGramsSql) rather
 * than PostgreSQL computing them again and writing them (this statement a fifth faster: docs/analytics-engine.md).
 */
const postRowsSql = (condition: string) =>
  `SELECT id::text AS id, floor(extract(epoch FROM posted_at) * 1000)::int8::text AS ts, author_id::text AS author_id,
    platform, coalesce(language, '') AS lang, kind, media, likes, comments, shares, engagement, views::text AS views,
    sentiment, hashtags, mentions, domains,
    CASE sentiment_label WHEN 'positive' THEN 1 WHEN 'negative' THEN -1 ELSE 0 END AS label,
    lexemes.words, lexemes.pos,
    CASE WHEN lower(text) = translate(text, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') THEN NULL
      ELSE lower(text) END AS ltext,
    text
  FROM posts CROSS JOIN LATERAL (
    SELECT coalesce(array_agg(u.lexeme ORDER BY u.n), '{}') AS words,
      coalesce(json_agg(u.positions ORDER BY u.n), '[]') AS pos
    FROM unnest(search) WITH ORDINALITY AS u(lexeme, positions, weights, n)
  ) AS lexemes
  WHERE ${condition}`;

/** postRowsSql's columns, in its order. */
const POST_ROW_COLUMNS = [
  'id',
  'ts',
  'author_id',
  'platform',
  'lang',
  'kind',
  'media',
  'likes',
  'comments',
  'shares',
  'engagement',
  'views',
  'sentiment',
  'hashtags',
  'mentions',
  'domains',
  'label',
  'words',
  'pos',
  'ltext',
  'text',
] as const;

/**
 * postRowsSql's rows as JSON lines (JSONEachRow) of the posts that match `condition`. row_to_json writes the positions
 * (json_agg's value) as they are, their elements separated by newlines: those are the only newlines not escaped (a
 * JSON string escapes its own), so removing them leaves one row a line.
 */
const postLinesSql = (condition: string) =>
  `SELECT replace(row_to_json(r)::text, E'\\n', '') FROM (${postRowsSql(condition)}) AS r`;

/** The lexicon's rows (its `word`) as JSON lines: the lexemes of the posts that match `condition`, each once. */
const lexiconLinesSql = (condition: string) =>
  `SELECT json_build_object('word', w)::text
  FROM (SELECT DISTINCT unnest(tsvector_to_array(search)) AS w FROM posts WHERE ${condition}) AS x`;

/**
 * Writes the values of `select` (one column of JSON text) to `file`, one a line, through COPY … TO STDOUT: PostgreSQL
 * writes them, and this process only passes the bytes on (no row is parsed here, nor its JSON written). CSV, with
 * a quote and a delimiter that a JSON text never holds unescaped (0x01, 0x02: JSON escapes every control character),
 * so each value is written as it is; the text format would double its backslashes. Returns how many lines.
 */
async function copyLines(client: pg.PoolClient, select: string, file: string): Promise<number> {
  const copy = client.query(
    copyTo(`COPY (${select}) TO STDOUT WITH (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')`),
  );
  await pipeline(copy, createWriteStream(file, { mode: 0o600 }));
  return copy.rowCount;
}

/** A batch of posts as files of JSON lines (copyPostFiles): their lexemes, for the lexicon, and their rows. */
export interface PostFiles {
  lexicon: string;
  posts: string;
  /** Rows in `posts`. */
  count: number;
}

/**
 * Writes the lexemes and the rows of the posts that match `condition` to `dir` (`name`-lexicon.jsonl and
 * `name`-posts.jsonl), both read by `client` (in one snapshot when its transaction is REPEATABLE READ).
 */
export async function copyPostFiles(
  client: pg.PoolClient,
  condition: string,
  dir: string,
  name: string,
): Promise<PostFiles> {
  const lexicon = join(dir, `${name}-lexicon.jsonl`);
  const posts = join(dir, `${name}-posts.jsonl`);
  await copyLines(client, lexiconLinesSql(condition), lexicon);
  return { lexicon, posts, count: await copyLines(client, postLinesSql(condition), posts) };
}

/**
 * Loads a batch's files into `db`: the lexemes first, so that a post in the store always has its lexemes in the
 * lexicon (a lexicon row whose post never lands finds nothing).
 */
export async function loadPostFiles(store: AnalyticsStore, db: string, files: PostFiles) {
  if (files.count === 0) return;
  await store.insertLines(`${db}.lexicon`, ['word'], files.lexicon);
  await store.insertLines(`${db}.posts`, POST_ROW_COLUMNS, files.posts);
}

/**
 * Loads profiles read by profileRowsSql into `db.profiles`, as JSONEachRow in the statement (a few hundred bytes a
 * profile; the posts' rows go through files: copyLines).
 */
export async function insertProfiles(store: AnalyticsStore, db: string, rows: object[]) {
  if (!rows.length) return;
  await store.exec(
    `INSERT INTO ${db}.profiles (${Object.keys(rows[0]!).join(', ')}) FORMAT JSONEachRow\n` +
      `${rows.map((row) => JSON.stringify(row)).join('\n')}\n`,
  );
}

/**
 * The token hashes of a post's hashtags, mentions, grams, platform and language (no positions), as the token table
 * holds them.
 */
const UNPOSITIONED_TOKENS = `arrayConcat(
      arrayMap(h -> sipHash64('#', h), arrayDistinct(hashtags)),
      arrayMap(m -> sipHash64('@', m), arrayDistinct(mentions)),
      gtoks,
      [${Object.entries(FIELD_TOKEN_MARKS)
        .map(([field, mark]) => `sipHash64('${mark}', ${field})`)
        .join(', ')}])`;

/** Every token hash of a post in the token table, an expression over the store's posts (what a delete names). */
export const POST_TOKENS = `arrayConcat(toks, ${UNPOSITIONED_TOKENS})`;

const POST_COLUMNS = TOKEN_POST_COLUMNS.map(([name]) => name).join(', ');

/**
 * The token table's rows of the posts of `db.posts` that match `condition` (every post by default): each lexeme with
 * its positions, each hashtag, mention and gram, its platform and language without (their hashes keep them apart from
 * the lexemes'), each with its post's columns.
 */
export const fillTokens = (store: AnalyticsStore, db: string, condition = 'true') =>
  store.exec(
    `INSERT INTO ${db}.tok (tok, ts, post, pos, ${POST_COLUMNS})
    SELECT t.1, ts, id, t.2, ${POST_COLUMNS} FROM ${db}.posts
    ARRAY JOIN arrayConcat(
      arrayZip(toks, pos),
      arrayMap(h -> (h, CAST([], 'Array(UInt16)')), ${UNPOSITIONED_TOKENS})
    ) AS t
    WHERE ${condition}`,
  );

/** The sample-ordered copy's rows of the posts of `db.posts` that match `condition` (every post by default). */
export const fillSampled = (store: AnalyticsStore, db: string, condition = 'true') =>
  store.exec(
    `INSERT INTO ${db}.posts_sampled (h, ${SAMPLED_COLUMNS.join(', ')})
    SELECT ${SAMPLE_HASH}, ${SAMPLED_COLUMNS.join(', ')} FROM ${db}.posts WHERE ${condition}`,
  );

/**
 * The texts table's rows of the posts of `db.posts` that match `condition` (every post by default) and have grams:
 * PostgreSQL's lower(text), by the scripts of the grams.
 */
export const fillTexts = (store: AnalyticsStore, db: string, condition = 'true') =>
  store.exec(
    `INSERT INTO ${db}.texts (scripts, ts, id, ltext)
    SELECT scripts, ts, id, ${LOWERED_TEXT} FROM ${db}.posts WHERE scripts != 0 AND (${condition})`,
  );
