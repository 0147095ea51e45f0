// The overview dashboard: mentions over time with spikes, totals against the previous period, sentiment, platforms,
// top posts and people. Two statements run side by side on one snapshot (readOnlyParts): per author over both periods
// (the totals and top people), and the current period over time (buckets, sentiment, platforms, top posts).
import { sql } from 'drizzle-orm';
import type { OverviewResponse } from '../../../src/contract/insights-responses';
import type { Db } from '../../db/database';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import { readOnlyParts, type Tx } from './transactions';
import { insightWhere, previousPeriod, scanFrom } from './where';
import { authorTimesPeriods, authorTimesServe } from './authors';
import { rollupSplit, rollupUnion } from './rollups';
import { jsonRows, peopleFor, postsByIds, toPost, type PersonAggregate, type PostRow } from './rows';
import { bucketFor, bucketOf, bucketSeries, instantOfWallClock, wallClockText } from './time';

export const TOP_OVERVIEW = 5;
/** A bucket is a spike when it is above mean + 2 standard deviations of the range's buckets and has at least this. */
export const SPIKE_MIN_COUNT = 5;
export const SPIKE_RULE =
  `A bucket is a spike when its mentions exceed the mean of the range's buckets (empty ones included) plus two ` +
  `population standard deviations, and number at least ${SPIKE_MIN_COUNT}.`;

type BucketRow = {
  local: string;
  mentions: number;
  engagement: number;
  positive: number;
  neutral: number;
  negative: number;
  sentiment_sum: number;
};
type PeriodRow = {
  cur: boolean;
  mentions: number;
  authors: number;
  engagement: number;
  reach: number;
};

export const changePct = (value: number, previous: number) =>
  previous === 0 ? null : Math.round(((value - previous) / previous) * 1000) / 10;

export function spikeStats(counts: number[]) {
  const mean = counts.length ? counts.reduce((a, b) => a + b, 0) / counts.length : 0;
  const variance = counts.length ? counts.reduce((a, n) => a + (n - mean) ** 2, 0) / counts.length : 0;
  const stddev = Math.sqrt(variance);
  const threshold = mean + 2 * stddev;
  return {
    mean,
    stddev,
    threshold,
    isSpike: (n: number) => n > threshold && n >= SPIKE_MIN_COUNT,
  };
}

type AuthorPeriods = 'both' | 'current' | 'previous';

/**
 * Per author and period (both periods in one scan, or one of them): the totals of each period (mentions, unique
 * authors, engagement, potential reach) and the current period's top people. Profiles are joined after grouping.
 */
export function overviewAuthorsStatement(context: InsightScope, periods: AuthorPeriods = 'both') {
  const { scope } = context;
  const previous = previousPeriod(context);
  const from = periods === 'current' ? scope.from : previous.from;
  const to = periods === 'previous' ? scope.from : scope.to;
  // Each period is as long as the range: what decides is the range (the posts path splits the periods over two
  // connections when the timeline costs little).
  if (periods === 'both' && authorTimesServe(context, scope.from, scope.to)) {
    return overviewAuthorTimesStatement(context);
  }
  return sql`WITH pa AS MATERIALIZED (
      SELECT p.posted_at >= ${scope.from} AS cur, p.author_id, count(*) AS n, sum(p.engagement) AS e
      FROM ${scanFrom(context)} WHERE ${insightWhere(context, from, to)} GROUP BY 1, 2)
    SELECT
      ${jsonRows(sql`SELECT pa.cur, sum(pa.n)::bigint AS mentions, count(*)::bigint AS authors,
        sum(pa.e)::bigint AS engagement, sum(a.followers)::bigint AS reach
        FROM pa JOIN profiles a ON a.id = pa.author_id GROUP BY pa.cur`)} AS periods,
      ${jsonRows(sql`SELECT author_id, n AS mentions, e AS engagement FROM pa WHERE cur
        ORDER BY n DESC, e DESC, author_id LIMIT ${TOP_OVERVIEW}`)} AS top_people`;
}

/**
 * overviewAuthorsStatement for both periods from author_post_times (authors.ts): one row per author with the
 * previous period's posts and engagement (n0, e0) beside the current one's (n1, e1) and the followers (f), and the
 * same answer.
 */
function overviewAuthorTimesStatement(context: InsightScope) {
  const bounds = [previousPeriod(context).from, context.scope.from, context.scope.to];
  const totals = [false, true].map((cur, i) => {
    const [n, e] = [sql.raw(`n${i}`), sql.raw(`e${i}`)];
    return sql`SELECT ${sql.raw(String(cur))} AS cur, sum(${n})::bigint AS mentions,
        count(*) FILTER (WHERE ${n} > 0)::bigint AS authors, sum(${e})::bigint AS engagement,
        coalesce(sum(f) FILTER (WHERE ${n} > 0), 0)::bigint AS reach
      FROM pa HAVING sum(${n}) > 0`;
  });
  return sql`WITH pa AS MATERIALIZED (${authorTimesPeriods(context, bounds)})
    SELECT ${jsonRows(sql.join(totals, sql` UNION ALL `))} AS periods,
      ${jsonRows(sql`SELECT author_id, n1 AS mentions, e1 AS engagement FROM pa WHERE n1 > 0
        ORDER BY n1 DESC, e1 DESC, author_id LIMIT ${TOP_OVERVIEW}`)} AS top_people`;
}

/**
 * The current period over time: one scan materialized, grouped once by (bucket, platform) for the buckets, their
 * sentiment and the platform split, and read once more for the top posts. When the condition reads only the
 * platform and the language, the groups come from the hourly rollup instead (rollups.ts).
 */
export function overviewTimelineStatement(context: InsightScope, split = rollupSplit(context, 'hour')) {
  const { scope, timeZone } = context;
  const bucket = bucketFor(scope.from, scope.to);
  // From the hourly rollup, the top posts are the first of the engagement index that match.
  const head = split
    ? sql`WITH g AS MATERIALIZED (
      SELECT ${bucketOf(bucket)} AS local, p.platform, sum(p.n) AS n, sum(p.e) AS e, sum(p.pos) AS pos,
        sum(p.neu) AS neu, sum(p.neg) AS neg, sum(p.s) AS s
      FROM (${rollupUnion(
        context,
        split,
        (where) => sql`SELECT p.posted_at, p.platform, p.posts AS n, p.engagement AS e, p.positive AS pos,
          p.neutral AS neu, p.negative AS neg, p.sentiment AS s FROM post_hours p WHERE ${where}`,
        (where) => sql`SELECT p.posted_at, p.platform, 1, p.engagement, (p.sentiment_label = 'positive')::int,
          (p.sentiment_label = 'neutral')::int, (p.sentiment_label = 'negative')::int, p.sentiment::float8
          FROM posts p WHERE ${where}`,
      )}) p GROUP BY 1, 2)`
    : sql`WITH m AS MATERIALIZED (
      SELECT p.id, p.engagement, p.sentiment, p.sentiment_label, p.platform,
        ${bucketOf(bucket)} AS local
      FROM ${scanFrom(context)} WHERE ${insightWhere(context)}),
    g AS MATERIALIZED (
      SELECT local, platform, count(*) AS n, sum(engagement) AS e,
        count(*) FILTER (WHERE sentiment_label = 'positive') AS pos,
        count(*) FILTER (WHERE sentiment_label = 'neutral') AS neu,
        count(*) FILTER (WHERE sentiment_label = 'negative') AS neg, sum(sentiment::float8) AS s
      FROM m GROUP BY 1, 2)`;
  const topPosts = split
    ? sql`SELECT p.id FROM posts p WHERE ${insightWhere(context)} ORDER BY p.engagement DESC, p.id DESC
        LIMIT ${TOP_OVERVIEW}`
    : sql`SELECT id FROM m ORDER BY engagement DESC, id DESC LIMIT ${TOP_OVERVIEW}`;
  return sql`${head}
    SELECT
      ${jsonRows(sql`SELECT ${wallClockText(sql`s.local`)} AS local, coalesce(b.n, 0)::int AS mentions,
          coalesce(b.e, 0) AS engagement, coalesce(b.pos, 0)::int AS positive, coalesce(b.neu, 0)::int AS neutral,
          coalesce(b.neg, 0)::int AS negative, coalesce(b.s, 0) AS sentiment_sum
        FROM (${bucketSeries(bucket, timeZone, scope.from, scope.to)}) s
        LEFT JOIN (SELECT local, sum(n) AS n, sum(e) AS e, sum(pos) AS pos, sum(neu) AS neu, sum(neg) AS neg,
            sum(s) AS s FROM g GROUP BY 1) b ON b.local = s.local
        ORDER BY s.local`)} AS buckets,
      ${jsonRows(sql`SELECT platform, sum(n)::int AS mentions FROM g GROUP BY platform
        ORDER BY mentions DESC, platform::text COLLATE "C"`)} AS platforms,
      ${jsonRows(topPosts)} AS top_posts`;
}

type AuthorsRow = { periods: PeriodRow[]; top_people: PersonAggregate[] };
type TimelineRow = {
  buckets: BucketRow[];
  platforms: Array<{ platform: OverviewResponse['platforms'][number]['platform']; mentions: number }>;
  top_posts: Array<{ id: number }>;
};

export async function overview(db: Db, context: InsightScope): Promise<OverviewResponse> {
  const { scope, timeZone } = context;
  const previous = previousPeriod(context);
  const bucket = bucketFor(scope.from, scope.to);

  // The two halves run side by side on one snapshot; each looks up what it lists in its own transaction.
  // When the timeline comes from the rollups it costs little, and the per-author scan of the posts is what takes
  // time: the current period's authors then run beside the previous period's and the timeline. From
  // author_post_times, both periods' authors cost about what one period's do, and stay together.
  const split = rollupSplit(context, 'hour');
  const splitAuthors = split !== null && !authorTimesServe(context, scope.from, scope.to);
  const authorsOf = async (tx: Tx, periods: AuthorPeriods) => {
    const [row] = (await tx.execute<AuthorsRow>(overviewAuthorsStatement(context, periods))).rows;
    return { ...row!, people: await peopleFor(tx, row!.top_people) };
  };
  const timelineOf = async (tx: Tx) => {
    const [row] = (await tx.execute<TimelineRow>(overviewTimelineStatement(context, split))).rows;
    return {
      ...row!,
      posts: await postsByIds(
        tx,
        row!.top_posts.map((p) => p.id),
      ),
    };
  };
  const [authors, [timeline, previousAuthors]] = await readOnlyParts<
    [
      AuthorsRow & { people: OverviewResponse['top_people'] },
      [TimelineRow & { posts: Map<number, PostRow> }, AuthorsRow | null],
    ]
  >(
    db,
    [
      (tx) => authorsOf(tx, splitAuthors ? 'current' : 'both'),
      async (tx) => [await timelineOf(tx), splitAuthors ? await authorsOf(tx, 'previous') : null],
    ],
    { timeZone },
  );
  const periods = [...authors.periods, ...(previousAuthors?.periods ?? [])];
  const { buckets, platforms } = timeline;
  const period = (cur: boolean) =>
    periods.find((p) => p.cur === cur) ?? { mentions: 0, authors: 0, engagement: 0, reach: 0 };
  const [now, before] = [period(true), period(false)];
  const metric = (key: 'mentions' | 'authors' | 'engagement' | 'reach') => ({
    value: Number(now[key]),
    previous: Number(before[key]),
    change_pct: changePct(Number(now[key]), Number(before[key])),
  });

  const spikes = spikeStats(buckets.map((b) => b.mentions));
  const total = Number(now.mentions);
  const sentimentSum = buckets.reduce((sum, b) => sum + b.sentiment_sum, 0);
  const days = (scope.to.getTime() - scope.from.getTime()) / 86_400_000;
  return {
    time_zone: timeZone,
    range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
    previous_range: { from: previous.from.toISOString(), to: previous.to.toISOString() },
    query: context.normalized,
    bucket,
    counted:
      `${countedBase(context)}. Mentions are matching posts; unique authors are counted once each; engagement = ` +
      `likes + comments + shares; potential reach = the followers of each distinct author, counted once. The ` +
      `previous period is the ${days % 1 === 0 ? `${days} days` : 'same length of time'} just before, with the ` +
      `same query, filters and refinements. Buckets are ${bucket}s of ${timeZone} wall-clock time.`,
    totals: {
      mentions: metric('mentions'),
      unique_authors: metric('authors'),
      engagement: metric('engagement'),
      reach: metric('reach'),
      mentions_per_day: Math.round((total / days) * 100) / 100,
    },
    over_time: buckets.map((b) => ({
      start: instantOfWallClock(b.local, timeZone).toISOString(),
      local: b.local,
      mentions: b.mentions,
      engagement: Number(b.engagement),
      positive: b.positive,
      neutral: b.neutral,
      negative: b.negative,
      average_sentiment: b.mentions ? b.sentiment_sum / b.mentions : null,
      spike: spikes.isSpike(b.mentions),
    })),
    spikes: {
      rule: SPIKE_RULE,
      mean: spikes.mean,
      stddev: spikes.stddev,
      threshold: spikes.threshold,
      min_count: SPIKE_MIN_COUNT,
    },
    sentiment: {
      positive: buckets.reduce((sum, b) => sum + b.positive, 0),
      neutral: buckets.reduce((sum, b) => sum + b.neutral, 0),
      negative: buckets.reduce((sum, b) => sum + b.negative, 0),
      average: total ? sentimentSum / total : null,
    },
    platforms: platforms.map((p) => ({
      platform: p.platform,
      mentions: p.mentions,
      share: total ? p.mentions / total : 0,
    })),
    top_posts: timeline.top_posts.map((p) => toPost(timeline.posts.get(p.id)!)),
    top_people: authors.people,
  };
}
