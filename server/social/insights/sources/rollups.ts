// The rollups (post_hours, post_days, post_tag_days; migration 0007), read instead of the posts when a dashboard's
// condition reads only what a rollup row keeps: the platform, the language and, for the hourly rollup, the
// wall-clock buckets of a zone whose offset is a whole number of hours (postHours, postDays). The range's whole UTC
// hours (or days) are read from the rollup and its partial ones at each end from the posts, with the same condition:
// the figures are exact. Below the mechanics, the figures the rollups give: the overview's timeline, performance,
// the conversation's hashtags, mentions and domains, and the posts lists' total.
import { sql, type SQL } from 'drizzle-orm';
import type { Bucket, PostSort, RefineField } from '@contract/insights';
import type { Cursor } from '../cursor';
import type { InsightScope } from '../request';
import { jsonRows } from '../rows';
import { bucketOf, dayOfWeekOf, hourOfDayOf } from '../time';
import { offsetMinutes } from '@contract/zoned-time';
import { correctedIds, correctedLabel, correctedSentiment } from '../../corrections';
import { insightWhere } from '../where';
import { afterCursor, PAGE_KEYS } from './posts-scan';
import { keepsCondition, type OverviewGroups, type Source } from './source';

export type Grain = 'hour' | 'day';
const GRAIN_MS: Record<Grain, number> = { hour: 3_600_000, day: 86_400_000 };

/**
 * Refinements a rollup of that grain can apply. A date refinement is a wall-clock bucket, and an hour_of_week one a
 * wall-clock day and hour, which a UTC hour falls in whole when the zone's offset is whole hours (checked
 * separately); a UTC day does not.
 */
const KEPT_REFINES: Record<Grain, RefineField[]> = {
  hour: ['platform', 'language', 'date', 'hour_of_week'],
  day: ['platform', 'language'],
};

/**
 * Whether the zone's offset from UTC is a whole number of hours over [from, to]: then every wall-clock hour, day
 * and week starts on a UTC hour, and a UTC hour lies in one bucket. Offsets change at most a few times a year and
 * last months, so they are read once a day across the range and at both ends.
 */
export function wholeHourOffsets(timeZone: string, from: Date, to: Date): boolean {
  for (let t = from.getTime(); ; t += GRAIN_MS.day) {
    const at = Math.min(t, to.getTime());
    if (offsetMinutes(new Date(at), timeZone) % 60 !== 0) return false;
    if (at === to.getTime()) return true;
  }
}

export interface RollupSplit {
  /** The whole UTC hours or days of the range, read from the rollup. */
  whole: { from: Date; to: Date };
  /** The partial ones at either end (none, one or two), read from the posts. */
  partial: Array<{ from: Date; to: Date }>;
}

/**
 * How [from, to) splits for a rollup of `grain`, or null when the rollup cannot serve the dashboard: its condition
 * reads more than the rollup keeps, the zone has a non-whole-hour offset (hourly rollup), or the range holds no whole
 * unit.
 */
export function rollupSplit(context: InsightScope, grain: Grain): RollupSplit | null {
  const { scope, timeZone } = context;
  if (!keepsCondition(context, KEPT_REFINES[grain])) return null;
  if (grain === 'hour' && !wholeHourOffsets(timeZone, scope.from, scope.to)) return null;
  const unit = GRAIN_MS[grain];
  const from = scope.from.getTime();
  const to = scope.to.getTime();
  const first = Math.ceil(from / unit) * unit;
  const last = Math.floor(to / unit) * unit;
  if (first >= last) return null;
  const partial = [
    { from, to: first },
    { from: last, to },
  ].filter((range) => range.from < range.to);
  return {
    whole: { from: new Date(first), to: new Date(last) },
    partial: partial.map((range) => ({ from: new Date(range.from), to: new Date(range.to) })),
  };
}

/** post_hours: the range's whole UTC hours, in a zone whose offset is whole hours. */
export const postHours: Source<RollupSplit> = { serves: (context) => rollupSplit(context, 'hour') };

/** post_days and post_tag_days: the range's whole UTC days. */
export const postDays: Source<RollupSplit> = { serves: (context) => rollupSplit(context, 'day') };

/**
 * The rollup's rows over the whole units and the posts of the partial ones, UNION ALL: `fromRollup` and `fromPosts`
 * give each part's SELECT for a condition on `p` (the rollup or the posts, aliased p, so the scope's conditions read
 * both alike) and must give the same columns; `corrected`, for sums of sentiment, the same columns from the posts of
 * the whole units that the workspace corrected, as differences from their estimates.
 */
function rollupUnion(
  context: InsightScope,
  split: RollupSplit,
  fromRollup: (where: SQL) => SQL,
  fromPosts: (where: SQL) => SQL,
  corrected?: (where: SQL) => SQL,
): SQL {
  const whole = insightWhere(context, split.whole.from, split.whole.to);
  const ids = correctedIds(context.corrections);
  const parts = [
    fromRollup(whole),
    ...split.partial.map((range) => fromPosts(insightWhere(context, range.from, range.to))),
    // The rollup sums the posts' estimates: the workspace's corrected posts among the whole units' add what their
    // corrections change. A rollup never serves a sentiment refinement, so they are counted there already.
    ...(corrected && ids.length
      ? [corrected(sql`p.id = ANY(${sql.param(ids)}::bigint[]) AND ${whole}`)]
      : []),
  ];
  return sql.join(
    parts.map((part) => sql`(${part})`),
    sql` UNION ALL `,
  );
}

/**
 * The overview's timeline from post_hours (the posts of the partial hours): grouped by (bucket, platform); the top
 * posts are the first matching posts of the engagement index.
 */
export function overviewGroups(
  context: InsightScope,
  split: RollupSplit,
  bucket: Bucket,
  top: number,
): OverviewGroups {
  const label = correctedLabel(context.corrections);
  const score = correctedSentiment(context.corrections);
  return {
    groups: sql`WITH g AS MATERIALIZED (
      SELECT ${bucketOf(bucket)} AS local, p.platform, sum(p.n) AS n, sum(p.e) AS e, sum(p.pos) AS pos,
        sum(p.neu) AS neu, sum(p.neg) AS neg, sum(p.s) AS s
      FROM (${rollupUnion(
        context,
        split,
        (where) => sql`SELECT p.posted_at, p.platform, p.posts AS n, p.engagement AS e, p.positive AS pos,
          p.neutral AS neu, p.negative AS neg, p.sentiment AS s FROM post_hours p WHERE ${where}`,
        (where) => sql`SELECT p.posted_at, p.platform, 1, p.engagement, (${label} = 'positive')::int,
          (${label} = 'neutral')::int, (${label} = 'negative')::int, ${score} FROM posts p WHERE ${where}`,
        (where) => sql`SELECT p.posted_at, p.platform, 0, 0,
          (${label} = 'positive')::int - (p.sentiment_label = 'positive')::int,
          (${label} = 'neutral')::int - (p.sentiment_label = 'neutral')::int,
          (${label} = 'negative')::int - (p.sentiment_label = 'negative')::int, ${score} - p.sentiment::float8
          FROM posts p WHERE ${where}`,
      )}) p GROUP BY 1, 2)`,
    topPosts: sql`SELECT p.id FROM posts p WHERE ${insightWhere(context)} ORDER BY p.engagement DESC, p.id DESC
        LIMIT ${top}`,
  };
}

/** The saved queries' volume from post_hours (the posts of the partial hours): matching posts per wall-clock day. */
export function dayCounts(context: InsightScope, split: RollupSplit) {
  return sql`SELECT ${bucketOf('day')} AS local, sum(p.n) AS n
    FROM (${rollupUnion(
      context,
      split,
      (where) => sql`SELECT p.posted_at, p.posts AS n FROM post_hours p WHERE ${where}`,
      (where) => sql`SELECT p.posted_at, 1 FROM posts p WHERE ${where}`,
    )}) p GROUP BY 1`;
}

/**
 * Performance from the rollups: per platform, media and kind from post_days (whose rows keep the engagement rate's
 * sums), day × hour from post_hours; the partial days and hours at the ends of the range from the posts.
 */
export function performanceGroups(context: InsightScope, days: RollupSplit, hours: RollupSplit) {
  const score = correctedSentiment(context.corrections);
  const byKind = rollupUnion(
    context,
    days,
    (where) => sql`SELECT p.platform, p.media, p.kind, p.posts, p.likes, p.comments, p.shares, p.views,
      p.engagement, p.sentiment, p.rate, p.rated FROM post_days p WHERE ${where}`,
    (where) => sql`SELECT p.platform, p.media, p.kind, 1, p.likes, p.comments, p.shares, coalesce(p.views, 0),
      p.engagement, ${score}, CASE WHEN a.followers > 0 THEN p.engagement::float8 / a.followers END,
      (a.followers > 0)::int FROM posts p JOIN profiles a ON a.id = p.author_id WHERE ${where}`,
    (
      where,
    ) => sql`SELECT p.platform, p.media, p.kind, 0, 0, 0, 0, 0, 0, ${score} - p.sentiment::float8, NULL::float8,
      0 FROM posts p WHERE ${where}`,
  );
  const byHour = rollupUnion(
    context,
    hours,
    (where) => sql`SELECT p.posted_at, p.posts, p.engagement FROM post_hours p WHERE ${where}`,
    (where) => sql`SELECT p.posted_at, 1, p.engagement FROM posts p WHERE ${where}`,
  );
  return sql`SELECT ${jsonRows(sql`
      SELECT platform, media, kind, NULL AS dow, NULL AS hr, GROUPING(platform) AS gp, GROUPING(media) AS gm,
        GROUPING(kind) AS gk, 1 AS gd, coalesce(sum(posts), 0)::int AS posts, sum(likes) AS likes,
        sum(comments) AS comments, sum(shares) AS shares, sum(views) AS views, sum(engagement) AS engagement,
        sum(rate) / nullif(sum(rated), 0) AS rate, sum(sentiment) / nullif(sum(posts), 0) AS sentiment
      FROM (${byKind}) k (platform, media, kind, posts, likes, comments, shares, views, engagement, sentiment, rate,
        rated)
      GROUP BY GROUPING SETS ((), (platform), (media), (kind))
      UNION ALL
      SELECT NULL, NULL, NULL, ${dayOfWeekOf}, ${hourOfDayOf}, 1, 1, 1, 0,
        sum(posts)::int, NULL, NULL, NULL, NULL, sum(engagement), NULL, NULL
      FROM (${byHour}) p (posted_at, posts, engagement) GROUP BY 4, 5`)} AS groups`;
}

/** Conversation's hashtags, mentions and domains from post_tag_days, and the posts of the partial days. */
export function conversationTags(context: InsightScope, split: RollupSplit, limit: number) {
  const union = rollupUnion(
    context,
    split,
    (where) => sql`SELECT p.type, p.tag, p.posts FROM post_tag_days p WHERE ${where}`,
    (where) => sql`SELECT e.type, e.tag, 1 FROM posts p CROSS JOIN LATERAL (
        SELECT 'hashtag', x FROM unnest(p.hashtags) x UNION SELECT 'mention', x FROM unnest(p.mentions) x
        UNION SELECT 'domain', x FROM unnest(p.domains) x) e (type, tag) WHERE ${where}`,
  );
  const top = (type: string) =>
    jsonRows(sql`SELECT tag AS value, posts FROM tags WHERE type = ${type}
      ORDER BY posts DESC, tag COLLATE "C" LIMIT ${limit}`);
  return sql`WITH tags AS MATERIALIZED (
      SELECT type, tag, sum(posts)::int AS posts FROM (${union}) u (type, tag, posts) GROUP BY 1, 2)
    SELECT ${top('hashtag')} AS hashtags, ${top('mention')} AS mentions, ${top('domain')} AS domains`;
}

/**
 * A page of posts by engagement or recency: the total from post_hours (and the posts of the partial hours), the page
 * from the first matching posts of the sort's index.
 */
export function postPage(
  context: InsightScope,
  split: RollupSplit,
  sort: Exclude<PostSort, 'overperformance'>,
  limit: number,
  cursor: Cursor | null,
) {
  const key = PAGE_KEYS[sort];
  const total = rollupUnion(
    context,
    split,
    (where) => sql`SELECT p.posts FROM post_hours p WHERE ${where}`,
    (where) => sql`SELECT 1 FROM posts p WHERE ${where}`,
  );
  return sql`SELECT (SELECT coalesce(sum(n), 0) FROM (${total}) t (n))::int AS total,
      ${jsonRows(sql`SELECT p.id, ${key.text} AS k FROM posts p
        WHERE ${insightWhere(context)} ${afterCursor(cursor, key.expression, key.cast)}
        ORDER BY ${key.expression} DESC, p.id DESC LIMIT ${limit + 1}`)} AS page`;
}
