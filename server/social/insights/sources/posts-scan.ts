// The posts themselves: every figure read from the matching posts (a scan of the scope's condition, the profiles
// joined only when it reads them). They serve every request, so they need no `serves` (sources/source.ts): they are
// what each dashboard reads when no other source serves, and the other sources exist because they cost less where
// they do. The conversation's words, which only the posts have, are read through their sample (conversation.ts).
import { sql, type SQL } from 'drizzle-orm';
import type { Bucket, PostSort } from '@contract/insights';
import { correctedLabel, correctedSentiment } from '../../corrections';
import { scopeWhere } from '../../scope';
import type { Cursor } from '../cursor';
import type { InsightScope } from '../request';
import { jsonRows } from '../rows';
import { bucketOf, dayOfWeekOf, hourOfDayOf } from '../time';
import { insightWhere, previousPeriod, scanFrom } from '../where';
import type { OverviewGroups } from './source';

/** A post's sentiment score and label as the workspace counts them (its corrections applied), over `posts p`. */
const sentimentColumns = ({ corrections }: InsightScope) =>
  sql`${correctedSentiment(corrections)} AS sentiment, ${correctedLabel(corrections)} AS sentiment_label`;

/** Which periods a per-author statement of the overview covers. */
export type AuthorPeriods = 'both' | 'current' | 'previous';

/**
 * The overview's totals (mentions, unique authors, engagement, potential reach) of both periods in one scan, or of
 * one of them, and the current period's top people: per author and period, profiles joined after grouping.
 */
export function overviewAuthors(context: InsightScope, periods: AuthorPeriods, top: number) {
  const { scope } = context;
  const previous = previousPeriod(context);
  const from = periods === 'current' ? scope.from : previous.from;
  const to = periods === 'previous' ? scope.from : scope.to;
  return sql`WITH pa AS MATERIALIZED (
      SELECT p.posted_at >= ${scope.from} AS cur, p.author_id, count(*) AS n, sum(p.engagement) AS e
      FROM ${scanFrom(context)} WHERE ${insightWhere(context, from, to)} GROUP BY 1, 2)
    SELECT
      ${jsonRows(sql`SELECT pa.cur, sum(pa.n)::bigint AS mentions, count(*)::bigint AS authors,
        sum(pa.e)::bigint AS engagement, sum(a.followers)::bigint AS reach
        FROM pa JOIN profiles a ON a.id = pa.author_id GROUP BY pa.cur`)} AS periods,
      ${jsonRows(sql`SELECT author_id, n AS mentions, e AS engagement FROM pa WHERE cur
        ORDER BY n DESC, e DESC, author_id LIMIT ${top}`)} AS top_people`;
}

/**
 * The overview's timeline: the current period's posts materialized once (m), grouped once by (bucket, platform) for
 * the buckets, their sentiment and the platform split, and read once more for the top posts.
 */
export function overviewGroups(context: InsightScope, bucket: Bucket, top: number): OverviewGroups {
  return {
    groups: sql`WITH m AS MATERIALIZED (
      SELECT p.id, p.engagement, ${sentimentColumns(context)}, p.platform,
        ${bucketOf(bucket)} AS local
      FROM ${scanFrom(context)} WHERE ${insightWhere(context)}),
    g AS MATERIALIZED (
      SELECT local, platform, count(*) AS n, sum(engagement) AS e,
        count(*) FILTER (WHERE sentiment_label = 'positive') AS pos,
        count(*) FILTER (WHERE sentiment_label = 'neutral') AS neu,
        count(*) FILTER (WHERE sentiment_label = 'negative') AS neg, sum(sentiment::float8) AS s
      FROM m GROUP BY 1, 2)`,
    topPosts: sql`SELECT id FROM m ORDER BY engagement DESC, id DESC LIMIT ${top}`,
  };
}

/**
 * The whole overview from one scan of both periods' matching posts (s), for when the cores are shared with other
 * heavy requests (overview.ts): the per-author figures of overviewAuthors('both') from s, and overviewGroups'
 * timeline from s's current period, so the current period's posts are read once instead of twice. Side by side on
 * idle cores, the two statements apart answer sooner; under load, this costs the machine less.
 */
export function overviewOneScan(
  context: InsightScope,
  bucket: Bucket,
  top: number,
): OverviewGroups & { authors: SQL } {
  const { scope } = context;
  const previous = previousPeriod(context);
  return {
    groups: sql`WITH s AS MATERIALIZED (
      SELECT p.id, p.author_id, p.engagement, ${sentimentColumns(context)}, p.platform, p.posted_at,
        p.posted_at >= ${scope.from} AS cur
      FROM ${scanFrom(context)} WHERE ${insightWhere(context, previous.from, scope.to)}),
    pa AS MATERIALIZED (SELECT cur, author_id, count(*) AS n, sum(engagement) AS e FROM s GROUP BY 1, 2),
    m AS MATERIALIZED (
      SELECT p.id, p.engagement, p.sentiment, p.sentiment_label, p.platform, ${bucketOf(bucket)} AS local
      FROM s p WHERE p.cur),
    g AS MATERIALIZED (
      SELECT local, platform, count(*) AS n, sum(engagement) AS e,
        count(*) FILTER (WHERE sentiment_label = 'positive') AS pos,
        count(*) FILTER (WHERE sentiment_label = 'neutral') AS neu,
        count(*) FILTER (WHERE sentiment_label = 'negative') AS neg, sum(sentiment::float8) AS s
      FROM m GROUP BY 1, 2)`,
    topPosts: sql`SELECT id FROM m ORDER BY engagement DESC, id DESC LIMIT ${top}`,
    authors: sql`${jsonRows(sql`SELECT pa.cur, sum(pa.n)::bigint AS mentions, count(*)::bigint AS authors,
        sum(pa.e)::bigint AS engagement, sum(a.followers)::bigint AS reach
        FROM pa JOIN profiles a ON a.id = pa.author_id GROUP BY pa.cur`)} AS periods,
      ${jsonRows(sql`SELECT author_id, n AS mentions, e AS engagement FROM pa WHERE cur
        ORDER BY n DESC, e DESC, author_id LIMIT ${top}`)} AS top_people`,
  };
}

/** The saved queries' volume: matching posts per wall-clock day (local, n), the days the range touches that have any. */
export function dayCounts(context: InsightScope) {
  return sql`SELECT ${bucketOf('day')} AS local, count(*) AS n FROM ${scanFrom(context)}
    WHERE ${insightWhere(context)} GROUP BY 1`;
}

/**
 * Performance: one scan grouped by (platform, media, kind, day, hour), at most 4 032 groups, which parallel workers
 * can build in parts; the dashboard's grouping sets are then taken over those groups.
 */
export function performanceGroups(context: InsightScope) {
  return sql`WITH g AS MATERIALIZED (
      SELECT p.platform, p.media, p.kind, ${dayOfWeekOf} AS dow, ${hourOfDayOf} AS hr, count(*) AS posts,
        sum(p.likes) AS likes, sum(p.comments) AS comments, sum(p.shares) AS shares,
        coalesce(sum(p.views), 0) AS views, sum(p.engagement) AS engagement,
        sum(${correctedSentiment(context.corrections)}) AS sentiment,
        sum(p.engagement::float8 / a.followers) FILTER (WHERE a.followers > 0) AS rate_sum,
        count(*) FILTER (WHERE a.followers > 0) AS rated
      FROM posts p JOIN profiles a ON a.id = p.author_id WHERE ${insightWhere(context)}
      GROUP BY 1, 2, 3, 4, 5)
    SELECT ${jsonRows(sql`SELECT platform, media, kind, dow, hr, GROUPING(platform) AS gp, GROUPING(media) AS gm,
        GROUPING(kind) AS gk, GROUPING(dow) AS gd, coalesce(sum(posts), 0)::int AS posts, sum(likes) AS likes,
        sum(comments) AS comments, sum(shares) AS shares, sum(views) AS views, sum(engagement) AS engagement,
        sum(rate_sum) / nullif(sum(rated), 0) AS rate, sum(sentiment) / nullif(sum(posts), 0) AS sentiment
      FROM g GROUP BY GROUPING SETS ((), (platform), (media), (kind), (dow, hr))`)} AS groups`;
}

/**
 * Conversation: hashtags, mentioned accounts and linked domains of the range's posts: one scan, the three arrays
 * unnested side by side (the shorter ones padded with nulls, which are left out) and counted in one pass (three
 * grouping sets). An element repeated in a post counts once: an array of two or more elements is unnested from its
 * distinct elements, and one of fewer, most of them, as it is, without the subquery.
 */
export function conversationTags(context: InsightScope, limit: number) {
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

/** People: per author, their matching posts (n), their engagement (e) and followers (f), profiles joined after grouping. */
export function authorFigures(context: InsightScope) {
  return sql`SELECT g.author_id, a.followers AS f, g.n, g.e
    FROM (SELECT p.author_id, count(*) AS n, sum(p.engagement) AS e FROM ${scanFrom(context)}
      WHERE ${insightWhere(context)} GROUP BY p.author_id) g
    JOIN profiles a ON a.id = g.author_id`;
}

/** The keys of the post lists' sorts, as an expression, as text PostgreSQL reads back exactly, and its type. */
export const PAGE_KEYS: Record<
  Exclude<PostSort, 'overperformance'>,
  { expression: SQL; text: SQL; cast: SQL }
> = {
  engagement: { expression: sql`engagement`, text: sql`engagement::text`, cast: sql`int` },
  recency: {
    expression: sql`posted_at`,
    text: sql`to_char(posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    cast: sql`timestamptz`,
  },
};

/** The rows after the cursor's (key, id), in descending order; nothing on the first page. */
export const afterCursor = (cursor: Cursor | null, expression: SQL, cast: SQL) =>
  cursor ? sql`AND (${expression}, id) < (${cursor.key}::${cast}, ${cursor.ties[0]!})` : sql``;

/** A page of posts by engagement or recency: the matching posts materialized, counted, and the page taken. */
export function postPage(
  context: InsightScope,
  sort: Exclude<PostSort, 'overperformance'>,
  limit: number,
  cursor: Cursor | null,
) {
  const key = PAGE_KEYS[sort];
  return sql`WITH m AS MATERIALIZED (
      SELECT p.id, p.engagement, p.posted_at FROM ${scanFrom(context)} WHERE ${insightWhere(context)})
    SELECT (SELECT count(*) FROM m)::int AS total,
      ${jsonRows(sql`SELECT id, ${key.text} AS k FROM m WHERE true ${afterCursor(cursor, key.expression, key.cast)}
        ORDER BY ${key.expression} DESC, id DESC LIMIT ${limit + 1}`)} AS page`;
}

/**
 * A page by recency of the posts with these ids (the candidates the analytics store gives,
 * server/analytics/insights/posts.ts): PostgreSQL's own order, cursor and key text over the posts' own times, which
 * the store keeps to the millisecond only. Looked up by id within the range (its months' partitions alone).
 */
export function recencyPageOfIds(
  ids: number[],
  range: { from: Date; to: Date },
  limit: number,
  cursor: Cursor | null,
) {
  const key = PAGE_KEYS.recency;
  // The candidates fetched by id first (MATERIALIZED), then sorted: with a few hundred ids or more the planner would
  // otherwise walk each month's partition by time in a Merge Append, reading the whole of every month the candidates
  // are not in (a 90-day page of every post at 10M posts: over 10 s, against a few ms this way).
  return sql`WITH c AS MATERIALIZED (SELECT id, posted_at FROM posts
      WHERE id = ANY(${sql.param(ids)}::bigint[])
        AND posted_at >= ${range.from.toISOString()}::timestamptz AND posted_at < ${range.to.toISOString()}::timestamptz)
    SELECT id, ${key.text} AS k FROM c WHERE true
      ${afterCursor(cursor, key.expression, key.cast)}
    ORDER BY ${key.expression} DESC, id DESC LIMIT ${limit + 1}`;
}

/**
 * A page of posts by overperformance: each post's engagement against its author's average over the scope without
 * refinements (every matching post of the range is read); `picked` marks the rows the refinements keep.
 */
export function overperformancePage(context: InsightScope, limit: number, cursor: Cursor | null) {
  const picked = context.refine ?? sql`true`;
  return sql`WITH s AS MATERIALIZED (
        SELECT p.id, p.author_id, p.engagement, ${picked} AS picked
        FROM ${scanFrom(context)} WHERE ${scopeWhere(context.scope)}),
      w AS (
        SELECT id, picked, CASE WHEN count(*) OVER author = 1 OR sum(engagement) OVER author = 0 THEN 1::float8
          ELSE (engagement::float8 * count(*) OVER author) / (sum(engagement) OVER author)::float8 END AS score
        FROM s WINDOW author AS (PARTITION BY author_id)),
      m AS MATERIALIZED (SELECT id, score FROM w WHERE picked)
      SELECT (SELECT count(*) FROM m)::int AS total,
        ${jsonRows(sql`SELECT id, score::text AS k, score FROM m WHERE true ${afterCursor(cursor, sql`score`, sql`float8`)}
          ORDER BY score DESC, id DESC LIMIT ${limit + 1}`)} AS page`;
}
