// The conversation dashboard: top hashtags, mentioned accounts, linked domains and words (with the average sentiment
// of the posts that contain each), and the words rising against the previous period. Hashtags, mentions and domains
// are counted in every matching post; words in at most WORD_SAMPLE_CAP posts per period (a fixed hash sample above
// that), because splitting every post into words is what costs most on a broad query.
import { sql, type SQL } from 'drizzle-orm';
import type { ConversationResponse } from '../../../src/api/contract/insights-responses';
import type { Db } from '../../db/database';
import { countedBase, insightWhere, previousPeriod, readOnly, scanFrom, type InsightScope } from './context';
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

type Row = Pick<ConversationResponse, 'hashtags' | 'mentions' | 'domains' | 'terms' | 'emerging'> & {
  sample: { cur_posts: number; prev_posts: number; cur_sampled: number; prev_sampled: number };
};

/**
 * One scan of both periods (parallel workers share it); the words of the sampled posts and the hashtags, mentions
 * and domains of the range's posts (each once per post) are then counted from the materialized rows.
 */
export function conversationStatement(context: InsightScope, limit: number, cap = WORD_SAMPLE_CAP) {
  const { scope } = context;
  const previous = previousPeriod(context);
  // Set-returning functions in the select list (cheaper than a lateral join per post); an element repeated in the
  // array counts once: only its first position is kept.
  const top = (column: SQL) =>
    jsonRows(sql`SELECT v AS value, count(*)::int AS posts
      FROM (SELECT unnest(${column}) AS v, generate_subscripts(${column}, 1) AS i, ${column} AS a FROM m WHERE cur) x
      WHERE array_position(a, v) = i
      GROUP BY v ORDER BY posts DESC, v COLLATE "C" LIMIT ${limit}`);
  const cut = (posts: SQL) =>
    sql`CASE WHEN ${posts} <= ${cap} THEN 65536 ELSE ceil(65536.0 * ${cap} / ${posts}) END`;
  // Estimated posts: counted posts × posts of the period ÷ posts of the sample (× 1 without a sample).
  const estimate = (n: SQL, period: 'cur' | 'prev') =>
    sql`(${n} * t.${sql.raw(period)}_posts::float8 / greatest(t.${sql.raw(period)}_sampled, 1))`;
  const inSample = sql`(m.id * 40503) % 65536 < CASE WHEN m.cur THEN c.cur_cut ELSE c.prev_cut END`;
  return sql`WITH m AS MATERIALIZED (
      SELECT p.id, p.posted_at >= ${scope.from} AS cur, p.sentiment, p.search,
        CASE WHEN p.posted_at >= ${scope.from} THEN p.hashtags END AS hashtags,
        CASE WHEN p.posted_at >= ${scope.from} THEN p.mentions END AS mentions,
        CASE WHEN p.posted_at >= ${scope.from} THEN p.domains END AS domains
      FROM ${scanFrom(context)} WHERE ${insightWhere(context, previous.from, scope.to)}),
    c AS MATERIALIZED (
      SELECT ${cut(sql`count(*) FILTER (WHERE cur)`)} AS cur_cut, ${cut(sql`count(*) FILTER (WHERE NOT cur)`)} AS prev_cut,
        count(*) FILTER (WHERE cur) AS cur_posts, count(*) FILTER (WHERE NOT cur) AS prev_posts FROM m),
    t AS MATERIALIZED (
      SELECT (SELECT cur_posts FROM c) AS cur_posts, (SELECT prev_posts FROM c) AS prev_posts,
        count(*) FILTER (WHERE m.cur AND ${inSample}) AS cur_sampled,
        count(*) FILTER (WHERE NOT m.cur AND ${inSample}) AS prev_sampled
      FROM m CROSS JOIN c),
    words AS MATERIALIZED (
      SELECT w, count(*) FILTER (WHERE m.cur) AS n, count(*) FILTER (WHERE NOT m.cur) AS prev,
        sum(m.sentiment::float8) FILTER (WHERE m.cur) AS s
      FROM m CROSS JOIN c CROSS JOIN LATERAL unnest(tsvector_to_array(m.search)) AS w
      WHERE ${inSample} GROUP BY w),
    kept AS MATERIALIZED (
      SELECT w, n, s, ${estimate(sql`n`, 'cur')} AS est, ${estimate(sql`prev`, 'prev')} AS est_prev
      FROM words CROSS JOIN t WHERE n > 0 AND ${keptWord(sql`w`)})
    SELECT ${top(sql`hashtags`)} AS hashtags, ${top(sql`mentions`)} AS mentions,
      ${top(sql`domains`)} AS domains, (SELECT row_to_json(t) FROM t) AS sample,
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
  const statement = conversationStatement(context, limit, cap);

  return readOnly(db, async (tx) => {
    const [row] = (await tx.execute<Row>(statement)).rows;
    const { sample, ...lists } = row!;
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
  });
}
