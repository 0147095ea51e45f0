// Dashboard time in the workspace's zone: the bucket size of a range and bucket starts (a date refinement must name
// one: refine.ts). The wall-clock arithmetic itself is shared with the SPA (contract/zoned-time.ts).
import type { Bucket } from '@contract/insights';
import { instantOfWallClock, wallClock } from '@contract/zoned-time';
import { bucketLocal } from '@server/analytics/figures/time';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

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

