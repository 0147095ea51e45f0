// One profile and its posts per day in a dashboard's scope (query, filters, range, refinements), every day of the range
// zero-filled: counted by the analytics store when it can answer (server/analytics/insights/detail.ts), else read
// from the posts of the range's months by the author's index (posts_author_posted_idx).
import { sql } from 'drizzle-orm';
import type { ProfileDetailResponse } from '@contract/social-detail';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { AUTHOR_COLUMNS, toAuthor, type AuthorRow } from '../post-rows';
import { countedBase } from '../insights/counted';
import type { InsightScope } from '../insights/request';
import { bucketSeries, wallClockText, bucketOf } from '../insights/time';
import { instantOfWallClock } from '@contract/zoned-time';
import { readOnly, type Tx } from '../insights/transactions';
import { fromStore } from '../insights/store-source';
import { storeProfileDays } from '@server/analytics/insights/detail';
import { bucketStarts } from '@server/analytics/insights/time';
import type { AnalyticsService } from '@server/analytics/service';
import { insightWhere, scanFrom } from '../insights/where';

const profileNotFound = () => new ApiError(404, 'not_found', 'There is no such profile.');

type ProfileRow = AuthorRow & { external_id: string; following: number; bio: string };
type DayRow = { local: string; posts: number; engagement: string | number };

/** The profile, or a 404. */
async function profileOf(tx: Tx, profileId: number): Promise<ProfileRow> {
  const [profile] = (
    await tx.execute<ProfileRow>(sql`
      SELECT ${AUTHOR_COLUMNS}, a.external_id, a.following, a.bio FROM profiles a WHERE a.id = ${profileId}`)
  ).rows;
  if (!profile) throw profileNotFound();
  return profile;
}

/**
 * The profile and its posts per day: from the analytics store when it can answer (storeProfileDays, the profile then
 * looked up in a PostgreSQL snapshot of the store's version), else from PostgreSQL alone.
 */
export async function readProfile(
  db: Db,
  context: InsightScope,
  profileId: number,
  service?: AnalyticsService,
): Promise<Omit<ProfileDetailResponse, 'history_clip'>> {
  const { scope, timeZone } = context;
  const stored = await fromStore(
    db,
    context,
    service,
    (store, storeScope) => storeProfileDays(store, storeScope, profileId),
    async (tx, rows) => {
      const profile = await profileOf(tx, profileId);
      const byDay = new Map(rows.map((row) => [row.local, row]));
      // Every day of the range, zero-filled, as PostgreSQL's series lists them.
      const days = bucketStarts('day', timeZone, scope.from, scope.to).map((local) => ({
        local,
        posts: byDay.get(local)?.posts ?? 0,
        engagement: byDay.get(local)?.engagement ?? 0,
      }));
      return profileAnswer(context, profile, days);
    },
  );
  if (stored) return stored;
  return readOnly(
    db,
    async (tx) => {
      const profile = await profileOf(tx, profileId);
      const days = (
        await tx.execute<DayRow>(sql`
          SELECT ${wallClockText(sql`s.local`)} AS local, coalesce(d.posts, 0)::int AS posts,
            coalesce(d.engagement, 0) AS engagement
          FROM (${bucketSeries('day', timeZone, scope.from, scope.to)}) s
          LEFT JOIN (
            SELECT ${bucketOf('day')} AS local, count(*) AS posts, sum(p.engagement) AS engagement
            FROM ${scanFrom(context)} WHERE ${insightWhere(context)} AND p.author_id = ${profileId}
            GROUP BY 1
          ) d ON d.local = s.local
          ORDER BY s.local`)
      ).rows;
      return profileAnswer(context, profile, days);
    },
    { timeZone },
  );
}

/** The answer from the profile and its days (every day of the range, in order), whichever source counted them. */
function profileAnswer(
  context: InsightScope,
  profile: ProfileRow,
  rows: DayRow[],
): Omit<ProfileDetailResponse, 'history_clip'> {
  const { scope, timeZone } = context;
  const days = rows.map((row) => ({
    start: instantOfWallClock(row.local, timeZone).toISOString(),
    day: row.local.slice(0, 10),
    posts: Number(row.posts),
    engagement: Number(row.engagement),
  }));
  const totals = days.reduce(
    (sum, day) => ({ posts: sum.posts + day.posts, engagement: sum.engagement + day.engagement }),
    { posts: 0, engagement: 0 },
  );
  return {
    profile: {
      ...toAuthor(profile),
      external_id: profile.external_id,
      following: profile.following,
      bio: profile.bio,
    },
    time_zone: timeZone,
    range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
    query: context.normalized,
    counted:
      `${countedBase(context)}, by @${profile.handle} (${profile.author_platform}); posts and the engagement ` +
      '(likes + comments + shares) of those posts, per day of the time zone',
    totals,
    days,
  };
}
