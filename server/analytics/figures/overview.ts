// The overview's figures from the store, which overview() (server/social/insights/overview.ts) makes its answer of.
// Three statements: per author over both periods (totals, exact unique authors, reach over distinct authors, top
// people), the current period per quarter and platform mapped to wall-clock buckets (buckets, sentiment, platforms),
// and the top posts.
import type { Bucket } from '@contract/insights';
import type { OverviewResponse } from '@contract/insights-responses';
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import type { PersonAggregate } from './people';
import {
  previousRange,
  ratedSql,
  storeFrom,
  storeLabel,
  storeSentiment,
  zonePlaceholder,
  type StoreScope,
} from './scope';
import { bucketStarts, keyWithPlatform, localBucketSql, timeKey } from './time';

type Platform = OverviewResponse['platforms'][number]['platform'];

/** One period's totals (cur: the range; else the previous period). */
interface StorePeriodRow {
  cur: boolean;
  mentions: number;
  authors: number;
  engagement: number;
  reach: number;
}

/** One wall-clock bucket of the range, zero-filled. */
export interface StoreBucketRow {
  local: string;
  mentions: number;
  engagement: number;
  positive: number;
  neutral: number;
  negative: number;
  /** Too little text to rate (NOT_RATED_LABEL): not in positive, neutral nor negative. */
  not_rated: number;
  /** The sentiment scores of the rated posts (positive + neutral + negative) added up. */
  sentiment_sum: number;
}

export interface StoreOverviewRows {
  /** The periods that have posts (none for an empty one). */
  periods: StorePeriodRow[];
  /** The range's top authors: most posts, then engagement, then the lower profile id. */
  top_people: PersonAggregate[];
  /** Every bucket the range touches, in order (bucketSeries'), zero-filled. */
  buckets: StoreBucketRow[];
  /** Posts per platform with any: most first, then by name (code points). */
  platforms: Array<{ platform: Platform; mentions: number }>;
  /** The ids of the top posts: most engagement, then the higher id. */
  top_posts: Array<{ id: number }>;
}

/** A period's figures in periodsOf's row, each named cur_… or prev_…. */
type PeriodFigure = Exclude<keyof StorePeriodRow, 'cur'>;

/**
 * Per author over both periods at once (each period's posts and engagement counted apart), joined with the profiles
 * once, then each period's figures: one pass over both periods' matching posts. Grouping per author once rather than
 * per (period, author) took the every-post statement at 10M from 1,010 to 840 ms over 30 days and from 1,310 to 960
 * over 90 (docs/analytics-engine.md, "Speed at 10M").
 */
async function periodsOf(store: AnalyticsStore, scope: StoreScope, top: number) {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const { from: posts, where } = storeFrom(scope, params, zone, ['ts', 'author_id', 'engagement'], {
    from: previousRange(context).from,
    to: context.scope.to,
  });
  const from = params.add(context.scope.from.getTime(), 'Int64');
  const period = (p: 'cur' | 'prev') =>
    `sum(pa.n_${p}) AS ${p}_mentions, countIf(pa.n_${p} > 0) AS ${p}_authors, sum(pa.e_${p}) AS ${p}_engagement,
      sumIf(a.followers, pa.n_${p} > 0) AS ${p}_reach`;
  const [row] = await store.query<
    Record<`${'cur' | 'prev'}_${PeriodFigure}`, string> & {
      top: Array<[string, string, string]>;
    }
  >(
    `SELECT ${period('cur')}, ${period('prev')},
      arrayMap(t -> (toString(t.3), toString(-t.1), toString(-t.2)),
        groupArraySortedIf(${Number(top)})((-toInt64(pa.n_cur), -toInt64(pa.e_cur), pa.author_id), pa.n_cur > 0))
        AS top
    FROM (SELECT p.author_id AS author_id, countIf(p.ts >= ${from}) AS n_cur,
        sumIf(p.engagement, p.ts >= ${from}) AS e_cur, countIf(p.ts < ${from}) AS n_prev,
        sumIf(p.engagement, p.ts < ${from}) AS e_prev
      FROM ${posts} WHERE ${where} GROUP BY author_id) pa
    INNER JOIN ${db}.profiles a ON a.id = pa.author_id`,
    params.values,
  );
  // The periods that have posts (none for an empty one).
  const periods = (['cur', 'prev'] as const)
    .map((p) => ({
      cur: p === 'cur',
      mentions: Number(row?.[`${p}_mentions`] ?? 0),
      authors: Number(row?.[`${p}_authors`] ?? 0),
      engagement: Number(row?.[`${p}_engagement`] ?? 0),
      reach: Number(row?.[`${p}_reach`] ?? 0),
    }))
    .filter((figures) => figures.mentions > 0);
  const people = (row?.top ?? []).map(([author_id, mentions, engagement]) => ({
    author_id,
    mentions: Number(mentions),
    engagement: Number(engagement),
  }));
  return { periods, people };
}

type GroupRow = {
  local: string;
  platform: Platform;
  n: string;
  e: string;
  pos: string;
  neu: string;
  neg: string;
  nr: string;
  s: number;
};

/**
 * The range's posts per wall-clock bucket and platform: grouped by quarter (or second) and platform as one integer
 * (keyWithPlatform), then the groups mapped.
 */
async function groupsOf(store: AnalyticsStore, scope: StoreScope, bucket: Bucket) {
  const { context } = scope;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const { from: posts, where } = storeFrom(scope, params, zone, [
    'q',
    'ts',
    'platform',
    'engagement',
    'label',
    'sentiment',
  ]);
  const time = timeKey(context.timeZone, context.scope.from, context.scope.to);
  const label = storeLabel(context.corrections, params);
  return store.query<GroupRow>(
    `SELECT ${localBucketSql(bucket, time.seconds, zone)} AS local, platform, sum(n) AS n, sum(e) AS e,
      sum(pos) AS pos, sum(neu) AS neu, sum(neg) AS neg, sum(nr) AS nr, sum(s) AS s
    FROM (SELECT any(${time.key}) AS k, any(p.platform) AS platform, count() AS n, sum(p.engagement) AS e,
        countIf(${label} = 1) AS pos, countIf(${label} = 0) AS neu, countIf(${label} = -1) AS neg,
        countIf(NOT ${ratedSql(label)}) AS nr,
        sumIf(${storeSentiment(context.corrections, params)}, ${ratedSql(label)}) AS s
      FROM ${posts} WHERE ${where} GROUP BY ${keyWithPlatform(time.key)})
    GROUP BY local, platform`,
    params.values,
  );
}

/** The ids of the scope's top posts: most engagement, then the higher id. */
export async function topPostsOf(store: AnalyticsStore, scope: StoreScope, top: number) {
  const { context } = scope;
  const params = new StoreParams();
  const { from: posts, where } = storeFrom(scope, params, zonePlaceholder(context, params), ['engagement']);
  const rows = await store.query<{ id: string }>(
    `SELECT p.id AS id FROM ${posts} WHERE ${where}
    ORDER BY p.engagement DESC, p.id DESC LIMIT ${Number(top)}`,
    params.values,
  );
  return rows.map((row) => ({ id: Number(row.id) }));
}

/** The buckets zero-filled in the series' order, and the platforms most first, then by name (code points). */
function timelineOf(groups: GroupRow[], bucket: Bucket, scope: StoreScope) {
  const { timeZone, scope: range } = scope.context;
  const byLocal = new Map<string, StoreBucketRow>();
  const byPlatform = new Map<Platform, number>();
  for (const g of groups) {
    const row = byLocal.get(g.local) ?? {
      local: g.local,
      mentions: 0,
      engagement: 0,
      positive: 0,
      neutral: 0,
      negative: 0,
      not_rated: 0,
      sentiment_sum: 0,
    };
    row.mentions += Number(g.n);
    row.engagement += Number(g.e);
    row.positive += Number(g.pos);
    row.neutral += Number(g.neu);
    row.negative += Number(g.neg);
    row.not_rated += Number(g.nr);
    row.sentiment_sum += g.s;
    byLocal.set(g.local, row);
    byPlatform.set(g.platform, (byPlatform.get(g.platform) ?? 0) + Number(g.n));
  }
  const buckets = bucketStarts(bucket, timeZone, range.from, range.to).map(
    (local) =>
      byLocal.get(local) ?? {
        local,
        mentions: 0,
        engagement: 0,
        positive: 0,
        neutral: 0,
        negative: 0,
        not_rated: 0,
        sentiment_sum: 0,
      },
  );
  const platforms = [...byPlatform]
    .map(([platform, mentions]) => ({ platform, mentions }))
    .sort(
      (a, b) => b.mentions - a.mentions || (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0),
    );
  return { buckets, platforms };
}

/** The overview's buckets alone (what alert rules judge): one statement, no per-author grouping, no top posts. */
export async function storeOverviewBuckets(
  store: AnalyticsStore,
  scope: StoreScope,
  bucket: Bucket,
): Promise<StoreBucketRow[]> {
  return timelineOf(await groupsOf(store, scope, bucket), bucket, scope).buckets;
}

/**
 * The overview's rows from the store for `bucket` (bucketFor of the range) and the `top` posts and people, the posts
 * and people still to be looked up by id.
 */
export async function storeOverview(
  store: AnalyticsStore,
  scope: StoreScope,
  bucket: Bucket,
  top: number,
): Promise<StoreOverviewRows> {
  // Sent together: the store's process runs them as its engine allows (bound statements one at a time).
  const [{ periods, people }, groups, topPosts] = await Promise.all([
    periodsOf(store, scope, top),
    groupsOf(store, scope, bucket),
    topPostsOf(store, scope, top),
  ]);
  return { periods, top_people: people, ...timelineOf(groups, bucket, scope), top_posts: topPosts };
}
