// Dashboard time in the workspace's zone: the bucket size of a range, bucket starts, and the bucket, day-of-week and
// hour expressions over `posts p` that a date or hour_of_week refinement's condition is made of (refine.ts). The
// wall-clock arithmetic itself is shared with the SPA (contract/zoned-time.ts).
import { sql, type SQL } from 'drizzle-orm';
import type { Bucket } from '@contract/insights';
import { instantOfWallClock, wallClock } from '@contract/zoned-time';
import { bucketLocal } from '@server/analytics/insights/time';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
export const BUCKET_MS: Record<Bucket, number> = { hour: HOUR_MS, day: DAY_MS, week: 7 * DAY_MS };

/** hour for ranges up to 2 days, day up to 90 days, ISO week (from Monday) beyond. */
export function bucketFor(from: Date, to: Date): Bucket {
  const length = to.getTime() - from.getTime();
  if (length <= 2 * DAY_MS) return 'hour';
  if (length <= 90 * DAY_MS) return 'day';
  return 'week';
}

/**
 * Whether the instant is the start of a bucket of this size in the zone (weeks start on Monday): its wall clock reads
 * the bucket's start (either time it does, in an hour the clocks go back), or it is the jump where the clocks skip that
 * start but not the whole bucket (Pacific/Chatham's hour 03:00 begins at 03:45 on 27 September 2026).
 */
export function isBucketStart(instant: Date, bucket: Bucket, timeZone: string): boolean {
  if (instant.getUTCMilliseconds() !== 0) return false;
  const w = wallClock(instant, timeZone);
  const onStart = w.minute === 0 && w.second === 0 && (bucket === 'hour' || w.hour === 0);
  if (onStart) return bucket !== 'week' || w.weekday === 1;
  return instantOfWallClock(bucketLocal(instant, bucket, timeZone), timeZone).getTime() === instant.getTime();
}

/**
 * The post's wall-clock time (a `timestamp`) in the session's zone, which every dashboard transaction sets to the
 * workspace's (readOnly in transactions.ts): the same value as `p.posted_at AT TIME ZONE zone`, without looking the zone
 * name up on every row.
 */
const localTime = sql`(p.posted_at::timestamp)`;

/** date_trunc of the post's wall-clock time in the session's zone (see localTime). */
export const bucketOf = (bucket: Bucket): SQL => sql`date_trunc(${bucket}, ${localTime})`;

/**
 * The cell of the performance dashboard's best-time grid a post falls in, from its wall-clock time in the session's
 * zone (see localTime): the ISO day of the week (1 = Monday) and the hour of the day (0–23). The grid and the
 * hour_of_week refinement read these same expressions, so a cell's drill-down lists exactly the posts it counts.
 */
export const dayOfWeekOf = sql`date_part('isodow', ${localTime})::int`;
export const hourOfDayOf = sql`date_part('hour', ${localTime})::int`;
