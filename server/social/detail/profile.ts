// One profile and its posts per day in a dashboard's scope (query, filters, range, refinements): read from the posts
// of the range's months by the author's index (posts_author_posted_idx), every day of the range zero-filled.
import { sql } from 'drizzle-orm';
import type { ProfileDetailResponse } from '@contract/social-detail';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { AUTHOR_COLUMNS, toAuthor, type AuthorRow } from '../post-rows';
import { countedBase } from '../insights/counted';
import type { InsightScope } from '../insights/request';
import { bucketSeries, wallClockText, bucketOf } from '../insights/time';
import { instantOfWallClock } from '@contract/zoned-time';
import { readOnly } from '../insights/transactions';
import { insightWhere, scanFrom } from '../insights/where';

const profileNotFound = () => new ApiError(404, 'not_found', 'There is no such profile.');

type ProfileRow = AuthorRow & { external_id: string; following: number; bio: string };
type DayRow = { local: string; posts: number; engagement: string | number };

export async function readProfile(
  db: Db,
  context: InsightScope,
  profileId: number,
): Promise<Omit<ProfileDetailResponse, 'history_clip'>> {
  const { scope, timeZone } = context;
  return readOnly(
    db,
    async (tx) => {
      const [profile] = (
        await tx.execute<ProfileRow>(sql`
          SELECT ${AUTHOR_COLUMNS}, a.external_id, a.following, a.bio FROM profiles a WHERE a.id = ${profileId}`)
      ).rows;
      if (!profile) throw profileNotFound();
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
      ).rows.map((row) => ({
        start: instantOfWallClock(row.local, timeZone).toISOString(),
        day: row.local.slice(0, 10),
        posts: row.posts,
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
    },
    { timeZone },
  );
}
