// What the store holds of PostgreSQL's rows, read the same way by a rebuild (every row, in one snapshot) and by the
// change feed's applier (the rows of the posts and profiles that changed): the SELECTs that shape them, how they reach
// the store (the posts as JSON lines that PostgreSQL's COPY writes to a file and the store reads, the profiles in the
// INSERT), and the tables the store derives from the loaded posts (their tokens, sample-ordered copy, texts and
// words). PostgreSQL is asked for the record's columns only: the store computes each post's words, positions, grams
// and lower-cased text from its text itself (layout.ts).
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { REDDIT_PERMALINK } from '@server/query/subreddit';
import { CARRIED_WHERE } from '@server/tags/carried';
import type { AnalyticsStore } from './store';
import {
  FIELD_TOKEN_MARKS,
  LOWERED_TEXT,
  NOT_RATED_LABEL,
  POST_WORDS,
  SAMPLE_HASH,
  SAMPLED_COLUMNS,
  SUBREDDIT_TOKEN_MARK,
  TOKEN_POST_COLUMNS,
} from './layout';

/** profileRowsSql's columns, in its order. */
export const PROFILE_ROW_COLUMNS = ['id', 'platform', 'handle', 'followers', 'country', 'verified'] as const;

/** The profiles' rows, for `WHERE condition` over `profiles` (the store lowers the handle itself: layout.ts). */
export const profileRowsSql = (condition = 'true') =>
  `SELECT id::text AS id, platform, handle, followers, coalesce(country, '') AS country, verified
  FROM profiles WHERE ${condition}`;

/**
 * A Reddit post's subreddit from its permalink, lower case, '' for every other post: server/query/subreddit.ts's
 * subredditOf in PostgreSQL (the same expression, which PostgreSQL's advanced regular expressions read as JavaScript's
 * do; regexp_match gives its capturing group); another platform's post is not matched against it.
 */
export const SUBREDDIT_SQL = `CASE WHEN platform = 'reddit'
      THEN coalesce((regexp_match(lower(url), '${REDDIT_PERMALINK}'))[1], '') ELSE '' END`;

/**
 * The posts' rows, for `WHERE condition` over `posts` (read as JSON lines: postLinesSql). Time in whole ms, rounded
 * down: then `ts < to` and `ts >= from` (ms bounds) agree with PostgreSQL's microseconds. The subreddit is computed
 * here, once a post (SUBREDDIT_SQL).
 */
const postRowsSql = (condition: string) =>
  `SELECT id::text AS id, floor(extract(epoch FROM posted_at) * 1000)::int8::text AS ts, author_id::text AS author_id,
    platform, coalesce(language, '') AS lang, kind, media, likes, comments, shares, engagement, views::text AS views,
    sentiment, hashtags, mentions, domains, ${SUBREDDIT_SQL} AS subreddit,
    CASE WHEN sentiment_rated IS FALSE THEN ${NOT_RATED_LABEL}
      ELSE CASE sentiment_label WHEN 'positive' THEN 1 WHEN 'negative' THEN -1 ELSE 0 END END AS label,
    text
  FROM posts WHERE ${condition}`;

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
  'subreddit',
  'label',
  'text',
] as const;

/**
 * postRowsSql's rows as JSON lines (JSONEachRow) of the posts that match `condition`: row_to_json writes a row on one
 * line (a JSON string escapes its own newlines).
 */
const postLinesSql = (condition: string) =>
  `SELECT row_to_json(r)::text FROM (${postRowsSql(condition)}) AS r`;

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
  // The stream ends at PostgreSQL's CopyDone; its row count comes with the CommandComplete after it, which may arrive
  // in a later read from the socket, once the stream has ended. A statement queued behind the COPY is answered only
  // after the COPY's CommandComplete and ReadyForQuery: then rowCount is PostgreSQL's (read earlier, it was sometimes
  // still 0, and a round or a rebuild skipped a batch it had copied: test/server/analytics/copy-lines.test.ts).
  await client.query('SELECT 1');
  return copy.rowCount;
}

/** A batch of posts as a file of JSON lines (copyPostFiles). */
export interface PostFiles {
  posts: string;
  /** Rows in `posts`. */
  count: number;
}

/**
 * Writes the rows of the posts that match `condition` to `dir` (`name`-posts.jsonl), read by `client` (in one
 * snapshot when its transaction is REPEATABLE READ).
 */
export async function copyPostFiles(
  client: pg.PoolClient,
  condition: string,
  dir: string,
  name: string,
): Promise<PostFiles> {
  const posts = join(dir, `${name}-posts.jsonl`);
  return { posts, count: await copyLines(client, postLinesSql(condition), posts) };
}

/** Loads a batch's file into `db.posts` (the store computes their words, positions and grams as they land). */
export async function loadPostFiles(store: AnalyticsStore, db: string, files: PostFiles) {
  if (files.count === 0) return;
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
 * The tags the posts that match `condition` (over every tag row, `post_tag_rows pt`: post_tags's and the rules' ranges'
 * (migration 0057); or the rows `from`: ofPosts) carry, each (tag, post)
 * once, or with `repeats` as many times as rows carry it (a manual row and rules of one tag), for a reader that keeps
 * one itself: the sort of the DISTINCT spilled to disk and took about a third of the feed's read of a rule's 200,000
 * posts at 10M. A removed post has no rows (they go in the transaction that removes it: migration 0052).
 */
export const tagRowsSql = (condition: string, { repeats = false, from = 'post_tag_rows pt' } = {}) =>
  `SELECT ${repeats ? '' : 'DISTINCT '}pt.tag_id::text AS tag, pt.post_id::text AS post FROM ${from}
  WHERE (${condition}) AND ${CARRIED_WHERE}`;

/** Loads rows of tagRowsSql into `db.post_tags`. */
export async function insertTags(
  store: AnalyticsStore,
  db: string,
  rows: ReadonlyArray<{ tag: string; post: string }>,
) {
  if (!rows.length) return;
  await store.exec(
    `INSERT INTO ${db}.post_tags (tag, post) FORMAT JSONEachRow\n` +
      `${rows.map((row) => JSON.stringify({ tag: row.tag, post: row.post })).join('\n')}\n`,
  );
}

/**
 * The token hashes of a post's hashtags, mentions, grams, platform, language and subreddit (a Reddit post's, when its
 * permalink names one) (no positions), as the token table holds them.
 */
const UNPOSITIONED_TOKENS = `arrayConcat(
      arrayMap(h -> sipHash64('#', h), arrayDistinct(hashtags)),
      arrayMap(m -> sipHash64('@', m), arrayDistinct(mentions)),
      gtoks,
      [${Object.entries(FIELD_TOKEN_MARKS)
        .map(([field, mark]) => `sipHash64('${mark}', ${field})`)
        .join(', ')}],
      arrayMap(s -> sipHash64('${SUBREDDIT_TOKEN_MARK}', s), arrayFilter(s -> s != '', [subreddit])))`;

/** Every token hash of a post in the token table, an expression over the store's posts (what a delete names). */
export const POST_TOKENS = `arrayConcat(ptoks, ${UNPOSITIONED_TOKENS})`;

const POST_COLUMNS = TOKEN_POST_COLUMNS.map(([name]) => name).join(', ');

/**
 * The token table's rows of the posts of `db.posts` that match `condition` (every post by default): each word with
 * its positions, each hashtag, mention and gram, its platform, language and subreddit without (their hashes keep
 * them apart from the words'), each with its post's columns.
 */
export const fillTokens = (store: AnalyticsStore, db: string, condition = 'true') =>
  store.exec(
    `INSERT INTO ${db}.tok (tok, ts, post, pos, ${POST_COLUMNS})
    SELECT t.1, ts, id, t.2, ${POST_COLUMNS} FROM ${db}.posts
    ARRAY JOIN arrayConcat(
      arrayZip(ptoks, pos),
      arrayMap(h -> (h, CAST([], 'Array(UInt32)')), ${UNPOSITIONED_TOKENS})
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
 * the lower-cased text, by the scripts of the grams.
 */
export const fillTexts = (store: AnalyticsStore, db: string, condition = 'true') =>
  store.exec(
    `INSERT INTO ${db}.texts (scripts, ts, id, ltext)
    SELECT scripts, ts, id, ${LOWERED_TEXT} FROM ${db}.posts WHERE scripts != 0 AND (${condition})`,
  );

/**
 * The lexicon's rows of the posts of `db.posts` that match `condition` (every post by default): their words, each
 * once, computed again from the text as the posts' `ptoks` were (POST_WORDS; the posts keep only the hashes).
 */
export const fillLexicon = (store: AnalyticsStore, db: string, condition = 'true') =>
  store.exec(
    `INSERT INTO ${db}.lexicon (word)
    SELECT DISTINCT arrayJoin(${POST_WORDS}) FROM ${db}.posts WHERE ${condition}`,
  );
