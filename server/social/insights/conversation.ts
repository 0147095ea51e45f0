// The conversation dashboard: top hashtags, mentioned accounts, linked domains and words (with the average sentiment
// of the posts that contain each), and the words rising against the previous period. Hashtags, mentions and domains
// are counted in every matching post; words in at most WORD_SAMPLE_CAP posts per period (a fixed hash sample above
// that), because splitting every post into words is what costs most on a broad query.
import { sql, type SQL } from 'drizzle-orm';
import type { ConversationResponse } from '../../../src/api/contract/insights-responses';
import type { Db } from '../../db/database';
import {
  countedBase,
  insightWhere,
  previousPeriod,
  readOnlyParts,
  scanFrom,
  type InsightScope,
} from './context';
import { jsonRows } from './rows';
import { keptWord, WORD_RULE } from './words';

/** A word is emerging with at least this many posts in the range … */
export const EMERGING_MIN_POSTS = 5;
/** … and at least this many times its posts in the previous period (a previous count of 0 counts as 1). */
export const EMERGING_MIN_RATIO = 2;
export const EMERGING_RULE =
  `A word is emerging when at least ${EMERGING_MIN_POSTS} posts of the range contain it and ratio = posts in the ` +
  `range ÷ posts in the previous period of equal length (0 counted as 1) is at least ${EMERGING_MIN_RATIO}; ` +
  'highest ratio first, then most posts, then the word. With a sample, posts are estimated (see words_sample).';

/** Words are counted in every post of a period up to this many posts, else in a sample of about this many. */
export const WORD_SAMPLE_CAP = 5_000;
/**
 * The sample: a post is in it when (id × 40503) mod 65536 < ⌈65536 × cap ÷ posts of its period⌉, a fixed
 * multiplicative hash of the id (the same posts on every request).
 */
export const SAMPLE_RULE =
  'a post is in the sample when (id × 40503) mod 65536 < ⌈65536 × cap ÷ the posts of its period⌉';

type TagsRow = Pick<ConversationResponse, 'hashtags' | 'mentions' | 'domains'>;
type WordsRow = Pick<ConversationResponse, 'terms' | 'emerging'> & {
  sample: { cur_posts: number; prev_posts: number; cur_sampled: number; prev_sampled: number };
};

/**
 * Hashtags, mentioned accounts and linked domains of the range's posts: one scan, the three arrays unnested side by
 * side (the shorter ones padded with nulls, which are left out) and counted in one pass (three grouping sets). An
 * element repeated in a post counts once: an array of two or more elements is unnested from its distinct elements,
 * and one of fewer, most of them, as it is, without the subquery.
 */
export function conversationTagsStatement(context: InsightScope, limit: number) {
  const distinct = (column: string) =>
    sql.raw(
      `unnest(CASE WHEN cardinality(p.${column}) < 2 THEN p.${column} ` +
        `ELSE ARRAY(SELECT DISTINCT e FROM unnest(p.${column}) e) END)`,
    );
  const top = (element: 'h' | 'n' | 'd') =>
    jsonRows(sql`SELECT ${sql.raw(element)} AS value, posts FROM tags WHERE ${sql.raw(element)} IS NOT NULL
      ORDER BY posts DESC, ${sql.raw(element)} COLLATE "C" LIMIT ${limit}`);
  return sql`WITH tags AS MATERIALIZED (
      SELECT h, n, d, count(*)::int AS posts
      FROM (SELECT ${distinct('hashtags')} AS h, ${distinct('mentions')} AS n, ${distinct('domains')} AS d
        FROM ${scanFrom(context)} WHERE ${insightWhere(context)}) x
      GROUP BY GROUPING SETS ((1), (2), (3)))
    SELECT ${top('h')} AS hashtags, ${top('n')} AS mentions, ${top('d')} AS domains`;
}

/**
 * The words of both periods: one scan keeps each matching post's row address, period and sample hash; the posts
 * of the sample (see SAMPLE_RULE) are then fetched again by address (a TID scan) for their full-text vector.
 */
export function conversationWordsStatement(context: InsightScope, limit: number, cap = WORD_SAMPLE_CAP) {
  const { scope } = context;
  const previous = previousPeriod(context);
  const cut = (posts: SQL) =>
    sql`CASE WHEN ${posts} <= ${cap} THEN 65536 ELSE ceil(65536.0 * ${cap} / ${posts})::int END`;
  // Estimated posts: counted posts × posts of the period ÷ posts of the sample (× 1 without a sample).
  const estimate = (n: SQL, period: 'cur' | 'prev') =>
    sql`(${n} * c.${sql.raw(period)}_posts::float8 / greatest(c.${sql.raw(period)}_sampled, 1))`;
  return sql`WITH m AS MATERIALIZED (
      SELECT p.ctid AS address, p.posted_at >= ${scope.from} AS cur, ((p.id * 40503) % 65536)::int AS h
      FROM ${scanFrom(context)} WHERE ${insightWhere(context, previous.from, scope.to)}),
    cuts AS MATERIALIZED (
      SELECT count(*) FILTER (WHERE cur) AS cur_posts, count(*) FILTER (WHERE NOT cur) AS prev_posts,
        ${cut(sql`count(*) FILTER (WHERE cur)`)} AS cur_cut, ${cut(sql`count(*) FILTER (WHERE NOT cur)`)} AS prev_cut
      FROM m),
    s AS MATERIALIZED (
      SELECT m.address, m.cur FROM m CROSS JOIN cuts WHERE m.h < CASE WHEN m.cur THEN cuts.cur_cut ELSE cuts.prev_cut END),
    c AS MATERIALIZED (
      SELECT cuts.cur_posts, cuts.prev_posts, count(*) FILTER (WHERE s.cur) AS cur_sampled,
        count(*) FILTER (WHERE NOT s.cur) AS prev_sampled
      FROM cuts LEFT JOIN s ON true GROUP BY cuts.cur_posts, cuts.prev_posts),
    words AS MATERIALIZED (
      SELECT w, count(*) FILTER (WHERE cur) AS n, count(*) FILTER (WHERE NOT cur) AS prev,
        sum(sentiment) FILTER (WHERE cur) AS s
      FROM (SELECT unnest(tsvector_to_array(p.search)) AS w, s.cur, p.sentiment::float8 AS sentiment
        FROM s JOIN posts p ON p.ctid = s.address) x
      GROUP BY w),
    kept AS MATERIALIZED (
      SELECT w, n, s, ${estimate(sql`n`, 'cur')} AS est, ${estimate(sql`prev`, 'prev')} AS est_prev
      FROM words CROSS JOIN c WHERE n > 0 AND ${keptWord(sql`w`)})
    SELECT (SELECT row_to_json(c) FROM c) AS sample,
      ${jsonRows(sql`SELECT w AS value, round(est::numeric)::int AS posts, s / n AS average_sentiment FROM kept
        ORDER BY n DESC, w COLLATE "C" LIMIT ${limit}`)} AS terms,
      ${jsonRows(sql`SELECT w AS value, round(est::numeric)::int AS posts, round(est_prev::numeric)::int AS previous_posts,
          est / greatest(est_prev, 1) AS ratio
        FROM kept WHERE est >= ${EMERGING_MIN_POSTS} AND est / greatest(est_prev, 1) >= ${EMERGING_MIN_RATIO}
        ORDER BY ratio DESC, est DESC, w COLLATE "C" LIMIT ${limit}`)} AS emerging`;
}

export async function conversation(
  db: Db,
  context: InsightScope,
  limit: number,
  cap = WORD_SAMPLE_CAP,
): Promise<ConversationResponse> {
  const { scope, timeZone } = context;
  const previous = previousPeriod(context);
  const [tags, words] = await readOnlyParts<[TagsRow, WordsRow]>(
    db,
    [
      async (tx) => (await tx.execute<TagsRow>(conversationTagsStatement(context, limit))).rows[0]!,
      async (tx) => (await tx.execute<WordsRow>(conversationWordsStatement(context, limit, cap))).rows[0]!,
    ],
    { timeZone },
  );
  const { sample, ...lists } = { ...tags, ...words };
  const [current, before] = [
    { posts: Number(sample.cur_posts), sampled: Number(sample.cur_sampled) },
    { posts: Number(sample.prev_posts), sampled: Number(sample.prev_sampled) },
  ];
  const sampled = current.sampled < current.posts || before.sampled < before.posts;
  return {
    time_zone: timeZone,
    range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
    previous_range: { from: previous.from.toISOString(), to: previous.to.toISOString() },
    query: context.normalized,
    counted:
      `${countedBase(context)}. Hashtags, mentioned accounts and linked domains are counted in every post ` +
      `(each once per post, most first, ties in code-point order); ${WORD_RULE}. ` +
      (sampled
        ? `Words were counted in a sample of ${current.sampled} of the range's ${current.posts} posts and ` +
          `${before.sampled} of the previous period's ${before.posts} (${SAMPLE_RULE}, cap ${cap}); their post ` +
          'counts are estimates scaled to each period. '
        : 'Words were counted in every post. ') +
      "A word's sentiment is the average sentiment estimate of the (counted) posts that contain it.",
    ...lists,
    words_sample: { current, previous: before, cap },
    emerging_rule: EMERGING_RULE,
  };
}
