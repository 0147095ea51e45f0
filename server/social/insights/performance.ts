// The performance dashboard: volume and engagement per platform, media type and post kind, the engagement rate, and
// the best time to post (day of the week × hour of the day in the workspace's zone): the analytics store's groups
// (server/analytics/figures/performance.ts), which name no post or profile.
import { MEDIA_VALUES, POST_KIND_VALUES } from '@contract/social-posts';
import { type PerformanceResponse } from '@contract/insights-responses';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { storePerformance, type StorePerformanceRow } from '@server/analytics/figures/performance';
import type { AnalyticsService } from '@server/analytics/service';
import type { Db } from '@server/db/database';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import { fromStore } from './store-source';

type GroupRow = StorePerformanceRow;
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

/** The performance dashboard, from the store's groups. */
export async function performance(
  db: Db,
  context: InsightScope,
  service?: AnalyticsService,
): Promise<PerformanceResponse> {
  const groups = await fromStore(
    db,
    context,
    service,
    (store, storeScope) => storePerformance(store, storeScope),
    // Nothing to look up: the groups name no post or profile.
    async (_tx, rows) => rows,
  );
  return performanceAnswer(context, groups);
}

/** The answer from the groups. */
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
      `platform reports them; average engagement is per post; ${ENGAGEMENT_RATE_RULE}; the average sentiment is ` +
      `over the rated posts (a post with too little text to rate is left out of it). Days (Monday = 1) and ` +
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
