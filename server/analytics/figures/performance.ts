// The performance dashboard's groups from the store (server/social/insights/performance.ts makes its answer of them):
// grouping sets () , (platform), (media), (kind) and (day of the week, hour) with posts, likes, comments, shares,
// views, engagement, the engagement rate and the average sentiment. The matching posts are grouped by quarter first and the quarters mapped to the zone's day and hour.
import { STORE_DATABASE } from '../layout';
import { StoreParams } from '../params';
import type { AnalyticsStore } from '../store';
import { ratedSql, storeFrom, storeLabel, storeSentiment, zonePlaceholder, type StoreScope } from './scope';
import { byQuarter, dayOfWeekSql, hourOfDaySql, perQuarter, timeKey, type TimeKey } from './time';

/** One group; gp, gm, gk, gd are 1 where the platform, media, kind or day × hour is rolled up (SQL's GROUPING()). */
export type StorePerformanceRow = {
  platform: string | null;
  media: string | null;
  kind: string | null;
  dow: number | null;
  hr: number | null;
  gp: number;
  gm: number;
  gk: number;
  gd: number;
  posts: number;
  likes: number;
  comments: number;
  shares: number;
  views: number;
  engagement: number;
  rate: number | null;
  sentiment: number | null;
};

type Raw = Omit<StorePerformanceRow, 'gp' | 'gm' | 'gk' | 'gd'> & Record<string, unknown>;

/** Every statement's settings (why: storePerformance). */
const SETTINGS = "group_by_use_nulls = 1, query_plan_join_swap_table = 'false'";

export async function storePerformance(
  store: AnalyticsStore,
  scope: StoreScope,
): Promise<StorePerformanceRow[]> {
  const { context, db = STORE_DATABASE } = scope;
  const params = new StoreParams();
  const zone = zonePlaceholder(context, params);
  const { from: posts, where } = storeFrom(scope, params, zone, [
    ...['platform', 'media', 'kind', 'q', 'ts', 'likes', 'comments', 'shares', 'views'],
    ...['engagement', 'sentiment', 'label', 'author_id'],
  ]);
  const time = timeKey(context.timeZone, context.scope.from, context.scope.to);
  const sentiment = storeSentiment(context.corrections, params);
  // The average sentiment is over the rated posts (the not-rated ones are counted apart: docs/sentiment.md).
  const isRated = ratedSql(storeLabel(context.corrections, params));
  // group_by_use_nulls: a rolled-up column reads NULL, as PostgreSQL's grouping sets give it (no value is NULL).
  // query_plan_join_swap_table = 'false': the profiles are the join's hash table, as written. Left to choose,
  // ClickHouse made a token slice's posts the hash table (a language's 2.9M posts over 90 days at 10M: 1.4 s against
  // 0.1).
  const rows = await store.query<Raw>(
    byQuarter(time)
      ? byHourOfWeek(params, zone, context.scope, posts, db, where, sentiment, isRated)
      : byKey(time, zone, posts, db, where, sentiment, isRated),
    params.values,
  );
  return rows.map((row) => ({
    platform: row.platform,
    media: row.media,
    kind: row.kind,
    dow: row.dow === null ? null : Number(row.dow),
    hr: row.hr === null ? null : Number(row.hr),
    gp: row.platform === null ? 1 : 0,
    gm: row.media === null ? 1 : 0,
    gk: row.kind === null ? 1 : 0,
    gd: row.dow === null ? 1 : 0,
    posts: Number(row.posts),
    likes: Number(row.likes),
    comments: Number(row.comments),
    shares: Number(row.shares),
    views: Number(row.views),
    engagement: Number(row.engagement),
    rate: row.rate === null ? null : Number(row.rate),
    sentiment: row.sentiment === null ? null : Number(row.sentiment),
  }));
}

/**
 * The statement where the range is grouped by quarter: each post's hour of the week read from a constant array of the
 * range's quarters (perQuarter), so that every grouping set groups the posts themselves by a small key (five
 * platforms, an hour of the week…). Grouping by (platform, media, kind, quarter) first, as byKey does, made about as
 * many groups as posts (at 1M over 90 days: 395 ms of the store's CPU against 123 for this, every post).
 */
function byHourOfWeek(
  params: StoreParams,
  zone: string,
  range: { from: Date; to: Date },
  posts: string,
  db: string,
  where: string,
  sentiment: string,
  isRated: string,
) {
  const how = perQuarter(
    'how_of',
    params.add(range.from.getTime(), 'Int64'),
    params.add(range.to.getTime(), 'Int64'),
    (seconds) => `toUInt8(${dayOfWeekSql(seconds, zone)} * 24 + ${hourOfDaySql(seconds, zone)})`,
  );
  return `WITH ${how.with}
    SELECT platform, media, kind, intDiv(how, 24) AS dow, how % 24 AS hr, count() AS posts, sum(p.likes) AS likes,
      sum(p.comments) AS comments, sum(p.shares) AS shares, sum(ifNull(p.views, 0)) AS views,
      sum(p.engagement) AS engagement,
      if(countIf(a.followers > 0) = 0, NULL,
        sumIf(p.engagement / a.followers, a.followers > 0) / countIf(a.followers > 0)) AS rate,
      if(countIf(${isRated}) = 0, NULL, sumIf(${sentiment}, ${isRated}) / countIf(${isRated})) AS sentiment
    FROM ${posts} INNER JOIN ${db}.profiles a ON a.id = p.author_id
    WHERE ${where}
    GROUP BY GROUPING SETS ((), (p.platform AS platform), (p.media AS media), (p.kind AS kind), (${how.of} AS how))
    SETTINGS ${SETTINGS}`;
}

/** The statement for any TimeKey: the posts grouped by (platform, media, kind, key) first, the keys then mapped. */
function byKey(
  time: TimeKey,
  zone: string,
  posts: string,
  db: string,
  where: string,
  sentiment: string,
  isRated: string,
) {
  return `SELECT platform, media, kind, dow, hr, sum(n) AS posts, sum(l) AS likes, sum(c) AS comments,
      sum(sh) AS shares, sum(v) AS views, sum(e) AS engagement,
      if(sum(rated) = 0, NULL, sum(rate_sum) / sum(rated)) AS rate, if(sum(sn) = 0, NULL, sum(s) / sum(sn)) AS sentiment
    FROM (SELECT platform, media, kind, ${dayOfWeekSql(time.seconds, zone)} AS dow,
        ${hourOfDaySql(time.seconds, zone)} AS hr, n, l, c, sh, v, e, s, sn, rate_sum, rated
      FROM (SELECT p.platform AS platform, p.media AS media, p.kind AS kind, ${time.key} AS k, count() AS n,
          sum(p.likes) AS l, sum(p.comments) AS c, sum(p.shares) AS sh, sum(ifNull(p.views, 0)) AS v,
          sum(p.engagement) AS e, sumIf(${sentiment}, ${isRated}) AS s, countIf(${isRated}) AS sn,
          sumIf(p.engagement / a.followers, a.followers > 0) AS rate_sum, countIf(a.followers > 0) AS rated
        FROM ${posts} INNER JOIN ${db}.profiles a ON a.id = p.author_id
        WHERE ${where} GROUP BY platform, media, kind, k))
    GROUP BY GROUPING SETS ((), (platform), (media), (kind), (dow, hr))
    SETTINGS ${SETTINGS}`;
}
