// The performance dashboard: volume and engagement per platform, media type and post kind, the engagement rate, and
// the best time to post (day of the week × hour of the day in the workspace's zone). One scan, grouping sets.
import { sql } from 'drizzle-orm';
import { MEDIA_VALUES, POST_KIND_VALUES } from '../../../src/contract/insights';
import { type PerformanceResponse } from '../../../src/contract/insights-responses';
import { PLATFORM_VALUES } from '../../../src/contract/social-scope';
import type { Db } from '../../db/database';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import { readOnly } from './transactions';
import { insightWhere } from './where';
import { jsonRows } from './rows';
import { rollupSplit, rollupUnion, type RollupSplit } from './rollups';
import { localTime } from './time';

type GroupRow = {
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

type Metrics = Omit<PerformanceResponse['by_platform'][number], 'platform'>;

const EMPTY: Metrics = {
  posts: 0,
  likes: 0,
  comments: 0,
  shares: 0,
  views: 0,
  engagement: 0,
  average_engagement: null,
  engagement_rate: null,
};

function metrics(row: GroupRow | undefined): Metrics {
  if (!row) return EMPTY;
  return {
    posts: row.posts,
    likes: Number(row.likes),
    comments: Number(row.comments),
    shares: Number(row.shares),
    views: Number(row.views),
    engagement: Number(row.engagement),
    average_engagement: row.posts ? Number(row.engagement) / row.posts : null,
    engagement_rate: row.rate,
  };
}

export const ENGAGEMENT_RATE_RULE =
  "engagement rate = each post's engagement ÷ its author's followers, averaged over the posts whose author has at " +
  'least one follower';

/**
 * One scan grouped by (platform, media, kind, day, hour): at most 4 032 groups, which parallel workers can build
 * in parts; the dashboard's grouping sets are then taken over those groups. When the condition reads only the
 * platform and the language, the rollups serve instead (performanceRollupStatement).
 */
export function performanceStatement(context: InsightScope) {
  const days = rollupSplit(context, 'day');
  const hours = days && rollupSplit(context, 'hour');
  if (days && hours) return performanceRollupStatement(context, days, hours);
  return sql`WITH g AS MATERIALIZED (
      SELECT p.platform, p.media, p.kind, date_part('isodow', ${localTime})::int AS dow,
        date_part('hour', ${localTime})::int AS hr, count(*) AS posts,
        sum(p.likes) AS likes, sum(p.comments) AS comments, sum(p.shares) AS shares,
        coalesce(sum(p.views), 0) AS views, sum(p.engagement) AS engagement, sum(p.sentiment::float8) AS sentiment,
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
 * The same groups from the rollups: per platform, media and kind from the daily rollup (whose rows keep the rate's
 * sum), day × hour from the hourly one; the partial days and hours at the ends of the range from the posts.
 */
function performanceRollupStatement(context: InsightScope, days: RollupSplit, hours: RollupSplit) {
  const byKind = rollupUnion(
    context,
    days,
    (where) => sql`SELECT p.platform, p.media, p.kind, p.posts, p.likes, p.comments, p.shares, p.views,
      p.engagement, p.sentiment, p.rate, p.rated FROM post_days p WHERE ${where}`,
    (where) => sql`SELECT p.platform, p.media, p.kind, 1, p.likes, p.comments, p.shares, coalesce(p.views, 0),
      p.engagement, p.sentiment::float8, CASE WHEN a.followers > 0 THEN p.engagement::float8 / a.followers END,
      (a.followers > 0)::int FROM posts p JOIN profiles a ON a.id = p.author_id WHERE ${where}`,
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
      SELECT NULL, NULL, NULL, date_part('isodow', ${localTime})::int, date_part('hour', ${localTime})::int, 1, 1, 1, 0,
        sum(posts)::int, NULL, NULL, NULL, NULL, sum(engagement), NULL, NULL
      FROM (${byHour}) p (posted_at, posts, engagement) GROUP BY 4, 5`)} AS groups`;
}

export async function performance(db: Db, context: InsightScope): Promise<PerformanceResponse> {
  const { scope, timeZone } = context;
  const statement = performanceStatement(context);

  return readOnly(
    db,
    async (tx) => {
      const [row] = (await tx.execute<{ groups: GroupRow[] }>(statement)).rows;
      const groups = row!.groups;
      const total = groups.find((g) => g.gp && g.gm && g.gk && g.gd);
      const find = (test: (g: GroupRow) => boolean) => metrics(groups.find(test));
      const best = new Map(groups.filter((g) => !g.gd).map((g) => [`${g.dow}:${g.hr}`, g]));
      const best_time: PerformanceResponse['best_time'] = [];
      for (let day = 1; day <= 7; day += 1) {
        for (let hour = 0; hour < 24; hour += 1) {
          const cell = best.get(`${day}:${hour}`);
          best_time.push({
            day,
            hour,
            posts: cell?.posts ?? 0,
            average_engagement: cell ? Number(cell.engagement) / cell.posts : null,
          });
        }
      }
      return {
        time_zone: timeZone,
        range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
        query: context.normalized,
        counted:
          `${countedBase(context)}. Engagement = likes + comments + shares; views are summed over the posts whose ` +
          `platform reports them; average engagement is per post; ${ENGAGEMENT_RATE_RULE}. Days (Monday = 1) and ` +
          `hours are ${timeZone} wall-clock time.`,
        totals: { ...metrics(total), average_sentiment: total?.sentiment ?? null },
        by_platform: PLATFORM_VALUES.map((platform) => ({
          platform,
          ...find((g) => !g.gp && g.platform === platform),
        })),
        by_media: MEDIA_VALUES.map((media) => ({ media, ...find((g) => !g.gm && g.media === media) })),
        by_kind: POST_KIND_VALUES.map((kind) => ({ kind, ...find((g) => !g.gk && g.kind === kind) })),
        best_time,
      };
    },
    { timeZone },
  );
}
