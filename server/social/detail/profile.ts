// One profile and its posts per day in a dashboard's scope (query, filters, range, refinements), every day of the range
// zero-filled: counted by the analytics store (server/analytics/figures/detail.ts).
import { sql } from 'drizzle-orm';
import type { ProfileDetailResponse } from '@contract/social-detail';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { AUTHOR_COLUMNS, toAuthor, type AuthorRow } from '../post-rows';
import { countedBase } from '../insights/counted';
import type { InsightScope } from '../insights/request';
import { instantOfWallClock } from '@contract/zoned-time';
import type { Tx } from '../insights/transactions';
import { fromStore } from '../insights/store-source';
import { storeProfileDays, type StoreProfileDay } from '@server/analytics/figures/detail';
import { bucketStarts } from '@server/analytics/figures/time';
import type { AnalyticsService } from '@server/analytics/service';

const profileNotFound = () => new ApiError(404, 'not_found', 'There is no such profile.');

type ProfileRow = AuthorRow & { external_id: string; following: number; bio: string };

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
 * The profile and its posts per day: the days from the analytics store (storeProfileDays), the profile then looked up
 * in the PostgreSQL snapshot the store's version was checked in.
 */
export async function readProfile(
  db: Db,
  context: InsightScope,
  profileId: number,
  service?: AnalyticsService,
): Promise<Omit<ProfileDetailResponse, 'history_clip'>> {
  const { scope, timeZone } = context;
  return fromStore(
    db,
    context,
    service,
    (store, storeScope) => storeProfileDays(store, storeScope, profileId),
    async (tx, rows) => {
      const profile = await profileOf(tx, profileId);
      const byDay = new Map(rows.map((row) => [row.local, row]));
      // Every day of the range, zero-filled.
      const days = bucketStarts('day', timeZone, scope.from, scope.to).map((local) => ({
        local,
        posts: byDay.get(local)?.posts ?? 0,
        engagement: byDay.get(local)?.engagement ?? 0,
      }));
      return profileAnswer(context, profile, days);
    },
  );
}

/** The answer from the profile and its days (every day of the range, in order). */
function profileAnswer(
  context: InsightScope,
  profile: ProfileRow,
  rows: StoreProfileDay[],
): Omit<ProfileDetailResponse, 'history_clip'> {
  const { scope, timeZone } = context;
  const days = rows.map((row) => ({
    start: instantOfWallClock(row.local, timeZone).toISOString(),
    day: row.local.slice(0, 10),
    posts: row.posts,
    engagement: row.engagement,
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
