// The overview dashboard: mentions over time with spikes, totals against the previous period, sentiment, platforms,
// top posts and people. One scan of the matching posts over both periods feeds every aggregate.
import { sql } from 'drizzle-orm';
import type { OverviewResponse } from '../../../src/api/contract/insights-responses';
import type { Db } from '../../db/database';
import { countedBase, insightWhere, previousPeriod, readOnly, scanFrom, type InsightScope } from './context';
import { jsonRows, peopleFor, postsByIds, toPost, type PersonAggregate } from './rows';
import { bucketFor, bucketSeries, instantOfWallClock, wallClockText } from './time';

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

export function overviewStatement(context: InsightScope) {
  const { scope, timeZone } = context;
  const previous = previousPeriod(context);
  const bucket = bucketFor(scope.from, scope.to);
  const where = insightWhere(context, previous.from, scope.to);
  // One scan of both periods (parallel workers share it); every aggregate reads the materialized rows.
  return sql`WITH m AS MATERIALIZED (
      SELECT p.id, p.author_id, p.engagement, p.sentiment, p.sentiment_label, p.platform,
        p.posted_at >= ${scope.from} AS cur, date_trunc(${bucket}, p.posted_at AT TIME ZONE ${timeZone}) AS local
      FROM ${scanFrom(context)} WHERE ${where}),
    per_author AS MATERIALIZED (
      SELECT cur, author_id, count(*) AS n, sum(engagement) AS e FROM m GROUP BY cur, author_id)
    SELECT
      ${jsonRows(sql`SELECT pa.cur, sum(pa.n)::bigint AS mentions, count(*)::bigint AS authors,
        sum(pa.e)::bigint AS engagement, sum(a.followers)::bigint AS reach
        FROM per_author pa JOIN profiles a ON a.id = pa.author_id GROUP BY pa.cur`)} AS periods,
      ${jsonRows(sql`SELECT ${wallClockText(sql`s.local`)} AS local, coalesce(b.n, 0) AS mentions,
          coalesce(b.e, 0) AS engagement, coalesce(b.pos, 0) AS positive, coalesce(b.neu, 0) AS neutral,
          coalesce(b.neg, 0) AS negative, coalesce(b.s, 0) AS sentiment_sum
        FROM (${bucketSeries(bucket, timeZone, scope.from, scope.to)}) s
        LEFT JOIN (
          SELECT local, count(*) AS n,
            sum(engagement) AS e, count(*) FILTER (WHERE sentiment_label = 'positive') AS pos,
            count(*) FILTER (WHERE sentiment_label = 'neutral') AS neu,
            count(*) FILTER (WHERE sentiment_label = 'negative') AS neg, sum(sentiment::float8) AS s
          FROM m WHERE cur GROUP BY 1) b ON b.local = s.local
        ORDER BY s.local`)} AS buckets,
      ${jsonRows(sql`SELECT platform, count(*) AS mentions FROM m WHERE cur GROUP BY platform
        ORDER BY mentions DESC, platform::text COLLATE "C"`)} AS platforms,
      ${jsonRows(sql`SELECT id FROM m WHERE cur ORDER BY engagement DESC, id DESC LIMIT ${TOP_OVERVIEW}`)} AS top_posts,
      ${jsonRows(sql`SELECT author_id, n AS mentions, e AS engagement FROM per_author WHERE cur
        ORDER BY n DESC, e DESC, author_id LIMIT ${TOP_OVERVIEW}`)} AS top_people`;
}

export async function overview(db: Db, context: InsightScope): Promise<OverviewResponse> {
  const { scope, timeZone } = context;
  const previous = previousPeriod(context);
  const bucket = bucketFor(scope.from, scope.to);
  const statement = overviewStatement(context);

  return readOnly(db, async (tx) => {
    const [row] = (
      await tx.execute<{
        periods: PeriodRow[];
        buckets: BucketRow[];
        platforms: Array<{ platform: OverviewResponse['platforms'][number]['platform']; mentions: number }>;
        top_posts: Array<{ id: number }>;
        top_people: PersonAggregate[];
      }>(statement)
    ).rows;
    const { periods, buckets, platforms } = row!;
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
    const posts = await postsByIds(
      tx,
      row!.top_posts.map((p) => p.id),
    );
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
      top_posts: row!.top_posts.map((p) => toPost(posts.get(p.id)!)),
      top_people: await peopleFor(tx, row!.top_people),
    };
  });
}
