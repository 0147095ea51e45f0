// The overview dashboard: mentions over time with spikes, totals against the previous period, sentiment, platforms,
// top posts and people. The analytics store gives the figures (server/analytics/figures/overview.ts: per author over
// both periods, the current period over time, the top posts' ids); the top posts and people are then looked up by id
// in PostgreSQL (store-source.ts).
import type { OverviewResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { countedBase, SENTIMENT_COUNTED } from './counted';
import type { InsightScope } from './request';
import type { PostRow } from '../post-rows';
import { peopleFor, postsByIds, toPost } from './rows';
import { bucketFor } from './time';
import { instantOfWallClock } from '@contract/zoned-time';
import {
  storeOverview,
  storeOverviewBuckets,
  type StoreBucketRow,
  type StoreOverviewRows,
} from '@server/analytics/figures/overview';
import type { AnalyticsService } from '@server/analytics/service';
import { previousPeriod } from './where';
import { fromStore } from './store-source';

const TOP_OVERVIEW = 5;
/** A bucket is a spike when it is above mean + 2 standard deviations of the range's buckets and has at least this. */
export const SPIKE_MIN_COUNT = 5;
const SPIKE_RULE =
  `A bucket is a spike when its mentions exceed the mean of the range's buckets (empty ones included) plus two ` +
  `population standard deviations, and number at least ${SPIKE_MIN_COUNT}.`;

const changePct = (value: number, previous: number) =>
  previous === 0 ? null : Math.round(((value - previous) / previous) * 1000) / 10;

/** The overview's spike rule over these buckets' mentions; alert rules judge their window by it too (server/alerts). */
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

/**
 * The overview: the store's figures, then the posts and people they name looked up in PostgreSQL. Without a store
 * (or one not ready) the 503 store-source.ts throws.
 */
export async function overview(
  db: Db,
  context: InsightScope,
  store?: AnalyticsService,
): Promise<OverviewResponse> {
  return overviewAnswer(
    context,
    await fromStore(
      db,
      context,
      store,
      (analytics, storeScope) =>
        storeOverview(analytics, storeScope, bucketFor(context.scope.from, context.scope.to), TOP_OVERVIEW),
      async (tx, rows) => {
        const posts = await postsByIds(
          tx,
          rows.top_posts.map((p) => Number(p.id)),
          context,
        );
        // In the store's order; a post removed since the figures were read is left out.
        const topPosts = rows.top_posts.flatMap(({ id }) => posts.get(Number(id)) ?? []);
        return { ...rows, topPosts, people: await peopleFor(tx, rows.top_people) };
      },
      { shareMatches: true },
    ),
  );
}

/** A bucket of the overview's over_time as alert rules judge it. */
export interface OverviewBucket {
  /** The bucket's first instant (ISO 8601, UTC). */
  start: string;
  mentions: number;
  negative: number;
}

/**
 * The overview's buckets alone, as its over_time gives them (start, mentions, negative), read from the store as the
 * overview reads them but without the per-author figures, the platforms and the top posts and people: what alert
 * rules judge (server/alerts/evaluate.ts).
 */
export async function overviewBuckets(
  db: Db,
  context: InsightScope,
  store?: AnalyticsService,
): Promise<OverviewBucket[]> {
  const { scope, timeZone } = context;
  const bucket = bucketFor(scope.from, scope.to);
  const rows = await fromStore(
    db,
    context,
    store,
    (analytics, storeScope) => storeOverviewBuckets(analytics, storeScope, bucket),
    async (_tx, buckets) => buckets,
  );
  return rows.map((b) => ({
    start: instantOfWallClock(b.local, timeZone).toISOString(),
    mentions: b.mentions,
    negative: b.negative,
  }));
}

/** What the overview is made of: the store's figures, the top posts and people looked up. */
type OverviewRows = StoreOverviewRows & {
  /** The top posts in order, as found (a post removed since the figures were read is left out). */
  topPosts: PostRow[];
  people: OverviewResponse['top_people'];
};

/** A bucket's rated posts: what its sentiment average is over (the not-rated posts are counted apart). */
const rated = (b: StoreBucketRow) => b.positive + b.neutral + b.negative;

/** The answer from the rows. */
function overviewAnswer(context: InsightScope, rows: OverviewRows): OverviewResponse {
  const { scope, timeZone } = context;
  const previous = previousPeriod(context);
  const bucket = bucketFor(scope.from, scope.to);
  const { periods, buckets, platforms } = rows;
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
  const ratedTotal = buckets.reduce((sum, b) => sum + rated(b), 0);
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
      `same query, filters and refinements. Buckets are ${bucket}s of ${timeZone} wall-clock time. ${SENTIMENT_COUNTED}`,
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
      not_rated: b.not_rated,
      average_sentiment: rated(b) ? b.sentiment_sum / rated(b) : null,
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
      not_rated: buckets.reduce((sum, b) => sum + b.not_rated, 0),
      average: ratedTotal ? sentimentSum / ratedTotal : null,
    },
    platforms: platforms.map((p) => ({
      platform: p.platform,
      mentions: p.mentions,
      share: total ? p.mentions / total : 0,
    })),
    top_posts: rows.topPosts.map((post) => toPost(post, context.corrections)),
    top_people: rows.people,
  };
}
