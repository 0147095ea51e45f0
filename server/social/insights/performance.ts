// The performance dashboard: volume and engagement per platform, media type and post kind, the engagement rate, and
// the best time to post (day of the week × hour of the day in the workspace's zone): one statement, from the posts or
// the rollups (performanceStatement), or from the analytics store when it holds PostgreSQL's corpus version
// (store-source.ts); one answer function formats either source's groups.
import { MEDIA_VALUES, POST_KIND_VALUES } from '@contract/social-posts';
import { type PerformanceResponse } from '@contract/insights-responses';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { storePerformance } from '@server/analytics/insights/performance';
import type { AnalyticsService } from '@server/analytics/service';
import type { Db } from '@server/db/database';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import * as postsScan from './sources/posts-scan';
import * as rollups from './sources/rollups';
import { fromStore } from './store-source';
import { readOnly } from './transactions';

/** One group of the performance statement; gp, gm, gk, gd are GROUPING(): 1 where the column is rolled up. */
export type GroupRow = {
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

const ENGAGEMENT_RATE_RULE =
  "engagement rate = each post's engagement ÷ its author's followers, averaged over the posts whose author has at " +
  'least one follower';

/**
 * Where performance reads its groups: from the rollups when both serve (the condition reads only the platform and
 * the language, and the zone's offset is whole hours for the day × hour grid): post_days per platform, media and kind
 * (its rows keep the engagement rate's sums) and post_hours for day × hour, a few thousand rows instead of every
 * matching post with its author's profile. Otherwise one scan of the posts (the rate needs the profiles).
 */
function performanceStatement(context: InsightScope) {
  const days = rollups.postDays.serves(context);
  const hours = days && rollups.postHours.serves(context);
  if (days && hours) return rollups.performanceGroups(context, days, hours);
  return postsScan.performanceGroups(context);
}

/**
 * The performance dashboard: from the analytics store when it holds exactly the corpus version PostgreSQL's snapshot
 * sees (its groups, checked against that version in a snapshot: store-source.ts), else from PostgreSQL alone.
 */
export async function performance(
  db: Db,
  context: InsightScope,
  service?: AnalyticsService,
): Promise<PerformanceResponse> {
  const groups =
    (await fromStore(
      db,
      context,
      service,
      (store, storeScope) => storePerformance(store, storeScope),
      // Nothing to look up: the groups name no post or profile.
      async (_tx, rows) => rows,
    )) ??
    (await readOnly(
      db,
      async (tx) => (await tx.execute<{ groups: GroupRow[] }>(performanceStatement(context))).rows[0]!.groups,
      { timeZone: context.timeZone },
    ));
  return performanceAnswer(context, groups);
}

/** The answer from the groups, the same whichever source read them. */
function performanceAnswer(context: InsightScope, groups: GroupRow[]): PerformanceResponse {
  const { scope, timeZone } = context;
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
}
