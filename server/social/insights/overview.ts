// The overview dashboard: mentions over time with spikes, totals against the previous period, sentiment, platforms,
// top posts and people. Two statements run side by side on one snapshot (readOnlyParts): per author over both periods
// (the totals and top people), and the current period over time (buckets, sentiment, platforms, top posts); which
// source each reads is chosen in overviewStatements.
import { sql, type SQL } from 'drizzle-orm';
import type { OverviewResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import type { PostRow } from '../post-rows';
import { jsonRows, peopleFor, postsByIds, toPost, type PersonAggregate } from './rows';
import * as authorTimes from './sources/author-times';
import * as postsScan from './sources/posts-scan';
import * as rollups from './sources/rollups';
import type { OverviewGroups } from './sources/source';
import { bucketFor, bucketSeries, wallClockText } from './time';
import { instantOfWallClock } from '@contract/zoned-time';
import { readOnly, readOnlyParts, type Tx } from './transactions';
import { storeOverview, storeOverviewBuckets } from '@server/analytics/insights/overview';
import type { AnalyticsService } from '@server/analytics/service';
import { sharingCores } from '../admission';
import { previousPeriod } from './where';
import { fromStore } from './store-source';

const TOP_OVERVIEW = 5;
/** A bucket is a spike when it is above mean + 2 standard deviations of the range's buckets and has at least this. */
export const SPIKE_MIN_COUNT = 5;
const SPIKE_RULE =
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

/** Every bucket of the range zero-filled (BucketRow), from the groups `g` of a source (sources/source.ts). */
function bucketsOfGroups(context: InsightScope) {
  const { scope, timeZone } = context;
  const bucket = bucketFor(scope.from, scope.to);
  return jsonRows(sql`SELECT ${wallClockText(sql`s.local`)} AS local, coalesce(b.n, 0)::int AS mentions,
      coalesce(b.e, 0) AS engagement, coalesce(b.pos, 0)::int AS positive, coalesce(b.neu, 0)::int AS neutral,
      coalesce(b.neg, 0)::int AS negative, coalesce(b.s, 0) AS sentiment_sum
    FROM (${bucketSeries(bucket, timeZone, scope.from, scope.to)}) s
    LEFT JOIN (SELECT local, sum(n) AS n, sum(e) AS e, sum(pos) AS pos, sum(neu) AS neu, sum(neg) AS neg,
        sum(s) AS s FROM g GROUP BY 1) b ON b.local = s.local
    ORDER BY s.local`);
}

/** The source of the overview's timeline: post_hours when it serves, else the posts. */
function timelineGroups(context: InsightScope): OverviewGroups {
  const bucket = bucketFor(context.scope.from, context.scope.to);
  const hours = rollups.postHours.serves(context);
  return hours
    ? rollups.overviewGroups(context, hours, bucket, TOP_OVERVIEW)
    : postsScan.overviewGroups(context, bucket, TOP_OVERVIEW);
}

/**
 * The current period over time from the chosen source's groups (sources/source.ts, OverviewGroups): every bucket of
 * the range zero-filled, the platform split, and the top posts.
 */
function overviewTimelineStatement(context: InsightScope, groups: OverviewGroups, authors?: SQL) {
  return sql`${groups.groups}
    SELECT ${authors ? sql`${authors},` : sql``}
      ${bucketsOfGroups(context)} AS buckets,
      ${jsonRows(sql`SELECT platform, sum(n)::int AS mentions FROM g GROUP BY platform
        ORDER BY mentions DESC, platform::text COLLATE "C"`)} AS platforms,
      ${jsonRows(groups.topPosts)} AS top_posts`;
}

/**
 * Where the overview reads its figures, as the statements to run: `authors` (per author over both periods, or the
 * current one: totals, unique authors, engagement, reach, top people), `timeline` (buckets, sentiment, platforms,
 * top posts) and, when the periods' authors are read apart, `previousAuthors`. `authors` runs on one connection,
 * `timeline` then `previousAuthors` on another (readOnlyParts).
 */
function overviewStatements(context: InsightScope) {
  const bucket = bucketFor(context.scope.from, context.scope.to);
  const hours = rollups.postHours.serves(context);
  // The timeline from post_hours when the condition reads only the platform and the language and the zone's offset
  // is whole hours (every wall-clock bucket is then made of whole UTC hours): a few thousand rows instead of every
  // matching post. Otherwise from the posts.
  const timeline = overviewTimelineStatement(context, timelineGroups(context));
  // Per author from author_post_times when it serves (the same conditions, and a range of at least 10 days, where one
  // pass over its rows costs less than the posts): both periods in the same pass, about what one period costs.
  if (authorTimes.authorPostTimes.serves(context)) {
    return {
      authors: authorTimes.overviewAuthors(context, TOP_OVERVIEW),
      timeline,
      previousAuthors: null,
      oneScan: null,
    };
  }
  // From the posts. When the timeline comes from the rollup it costs little, and the per-author scan is what takes
  // time: the current period's authors then run beside the previous period's and the timeline.
  if (hours) {
    return {
      authors: postsScan.overviewAuthors(context, 'current', TOP_OVERVIEW),
      timeline,
      previousAuthors: postsScan.overviewAuthors(context, 'previous', TOP_OVERVIEW),
      oneScan: null,
    };
  }
  // Otherwise both periods in one scan, beside the timeline's scan; or, when the cores are shared with other heavy
  // requests, everything from one scan (postsScan.overviewOneScan).
  const one = postsScan.overviewOneScan(context, bucket, TOP_OVERVIEW);
  return {
    authors: postsScan.overviewAuthors(context, 'both', TOP_OVERVIEW),
    timeline,
    previousAuthors: null,
    oneScan: overviewTimelineStatement(context, one, one.authors),
  };
}

type AuthorsRow = { periods: PeriodRow[]; top_people: PersonAggregate[] };
type TimelineRow = {
  buckets: BucketRow[];
  platforms: Array<{ platform: OverviewResponse['platforms'][number]['platform']; mentions: number }>;
  top_posts: Array<{ id: number }>;
};

/**
 * The overview: from the analytics store when it holds exactly the corpus version PostgreSQL's snapshot sees (its
 * figures, then the posts and people they name from PostgreSQL), else from PostgreSQL alone.
 */
export async function overview(
  db: Db,
  context: InsightScope,
  store?: AnalyticsService,
): Promise<OverviewResponse> {
  const fromStore = store ? await overviewFromStore(db, context, store) : null;
  return overviewAnswer(context, fromStore ?? (await overviewFromPostgres(db, context)));
}

/** A bucket of the overview's over_time as alert rules judge it. */
export interface OverviewBucket {
  /** The bucket's first instant (ISO 8601, UTC). */
  start: string;
  mentions: number;
  negative: number;
}

/**
 * The overview's buckets alone, as its over_time gives them (start, mentions, negative), read as the overview reads
 * them (the store when it holds PostgreSQL's version, else PostgreSQL) but without the per-author figures, the
 * platforms and the top posts and people: what alert rules judge (server/alerts/evaluate.ts).
 */
export async function overviewBuckets(
  db: Db,
  context: InsightScope,
  store?: AnalyticsService,
): Promise<OverviewBucket[]> {
  const { scope, timeZone } = context;
  const bucket = bucketFor(scope.from, scope.to);
  const rows =
    (store
      ? await fromStore(
          db,
          context,
          store,
          (analytics, storeScope) => storeOverviewBuckets(analytics, storeScope, bucket),
          async (_tx, buckets) => buckets,
        )
      : null) ??
    (await readOnly(
      db,
      async (tx) =>
        (
          await tx.execute<{ buckets: BucketRow[] }>(
            sql`${timelineGroups(context).groups} SELECT ${bucketsOfGroups(context)} AS buckets`,
          )
        ).rows[0]!.buckets,
      { timeZone },
    ));
  return rows.map((b) => ({
    start: instantOfWallClock(b.local, timeZone).toISOString(),
    mentions: b.mentions,
    negative: b.negative,
  }));
}

/** What the overview is made of, from either source. */
interface OverviewRows {
  periods: PeriodRow[];
  buckets: BucketRow[];
  platforms: TimelineRow['platforms'];
  /** The top posts in order, as found (a post removed since the figures were read is left out). */
  topPosts: PostRow[];
  people: OverviewResponse['top_people'];
}

async function overviewFromPostgres(db: Db, context: InsightScope): Promise<OverviewRows> {
  const { scope, timeZone } = context;
  const statements = overviewStatements(context);

  // The two halves run side by side on one snapshot; each looks up what it lists in its own transaction.
  const authorsOf = async (tx: Tx, statement: SQL) => {
    const [row] = (await tx.execute<AuthorsRow>(statement)).rows;
    return { ...row!, people: await peopleFor(tx, row!.top_people) };
  };
  const timelineOf = async (tx: Tx) => {
    const [row] = (await tx.execute<TimelineRow>(statements.timeline)).rows;
    return {
      ...row!,
      posts: await postsByIds(
        tx,
        row!.top_posts.map((p) => p.id),
        scope,
      ),
    };
  };
  const [authors, [timeline, previousAuthors]] =
    statements.oneScan && sharingCores()
      ? await readOnly(
          db,
          async (tx) => {
            const [row] = (await tx.execute<AuthorsRow & TimelineRow>(statements.oneScan!)).rows;
            const [people, posts] = [
              await peopleFor(tx, row!.top_people),
              await postsByIds(
                tx,
                row!.top_posts.map((p) => p.id),
                scope,
              ),
            ];
            return [{ ...row!, people }, [{ ...row!, posts }, null]] as const;
          },
          { timeZone },
        )
      : await readOnlyParts<
          [
            AuthorsRow & { people: OverviewResponse['top_people'] },
            [TimelineRow & { posts: Map<number, PostRow> }, AuthorsRow | null],
          ]
        >(
          db,
          [
            (tx) => authorsOf(tx, statements.authors),
            async (tx) => [
              await timelineOf(tx),
              statements.previousAuthors ? await authorsOf(tx, statements.previousAuthors) : null,
            ],
          ],
          { timeZone },
        );
  return {
    periods: [...authors.periods, ...(previousAuthors?.periods ?? [])],
    buckets: timeline.buckets,
    platforms: timeline.platforms,
    topPosts: found(timeline.top_posts, timeline.posts),
    people: authors.people,
  };
}

const found = (ids: Array<{ id: number | string }>, posts: Map<number, PostRow>) =>
  ids.flatMap(({ id }) => posts.get(Number(id)) ?? []);

/** The store's figures, their posts and people looked up in a snapshot of the same version (store-source.ts). */
const overviewFromStore = (db: Db, context: InsightScope, service: AnalyticsService) =>
  fromStore(
    db,
    context,
    service,
    (store, storeScope) =>
      storeOverview(store, storeScope, bucketFor(context.scope.from, context.scope.to), TOP_OVERVIEW),
    async (tx, rows): Promise<OverviewRows> => {
      const posts = await postsByIds(
        tx,
        rows.top_posts.map((p) => Number(p.id)),
        context.scope,
      );
      return {
        periods: rows.periods,
        buckets: rows.buckets,
        platforms: rows.platforms as TimelineRow['platforms'],
        topPosts: found(rows.top_posts, posts),
        people: await peopleFor(tx, rows.top_people),
      };
    },
  );

/** The answer from the rows, the same whichever source read them. */
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
    top_posts: rows.topPosts.map((post) => toPost(post, context.corrections)),
    top_people: rows.people,
  };
}
