// Time in the workspace's zone: wall-clock parts of an instant, the instant a wall-clock time starts at, the bucket
// size of a range, and the zero-filled bucket series (in SQL, so it groups exactly as PostgreSQL's date_trunc does).
import { sql, type SQL } from 'drizzle-orm';
import type { Bucket } from '../../../src/contract/insights';

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

const formats = new Map<string, Intl.DateTimeFormat>();
function formatFor(timeZone: string) {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      weekday: 'short',
    });
    formats.set(timeZone, format);
  }
  return format;
}

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** ISO day of the week: 1 = Monday … 7 = Sunday. */
  weekday: number;
}

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

export function wallClock(instant: Date, timeZone: string): WallClock {
  const parts = Object.fromEntries(
    formatFor(timeZone)
      .formatToParts(instant)
      .map((part) => [part.type, part.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday!) + 1,
  };
}

/** The wall-clock time as if it were UTC, in milliseconds (seconds precision). */
const wallMs = (w: WallClock) => Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);

/** Minutes east of UTC in effect at the instant. */
export function offsetMinutes(instant: Date, timeZone: string): number {
  const seconds = Math.floor(instant.getTime() / 1000) * 1000;
  return Math.round((wallMs(wallClock(instant, timeZone)) - seconds) / 60_000);
}

/**
 * A formatter of instants as their wall-clock time in the zone, "YYYY-MM-DD HH:MM:SS", for many instants (an export's
 * rows): Intl's formatToParts costs about 20 µs an instant, so the zone's offset is read once per UTC hour and added.
 * An hour in which the offset changes (the start and the end of the hour disagree) is formatted instant by instant.
 */
export function wallClockFormatter(timeZone: string): (instant: Date) => string {
  /** The offset in ms at an instant: its wall clock (to the second) read as UTC, minus the instant's second. */
  const offsetAt = (ms: number) => wallMs(wallClock(new Date(ms), timeZone)) - Math.floor(ms / 1000) * 1000;
  const hours = new Map<number, number | null>();
  return (instant) => {
    const ms = instant.getTime();
    const hour = Math.floor(ms / HOUR_MS);
    let offset = hours.get(hour);
    if (offset === undefined) {
      const first = offsetAt(hour * HOUR_MS);
      offset = first === offsetAt((hour + 1) * HOUR_MS - 1) ? first : null;
      hours.set(hour, offset);
    }
    const local = new Date(ms + (offset ?? offsetAt(ms)));
    return local.toISOString().slice(0, 19).replace('T', ' ');
  };
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** "2026-03-08T02:00:00" for the wall clock. */
export const formatWallClock = (w: WallClock) =>
  `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;

/**
 * The first instant whose wall clock reads `local` ("YYYY-MM-DDTHH:MM:SS"): in the hour the clocks go back, the
 * earlier of the two; in a gap (the clocks jump over it) the instant of the jump.
 */
export function instantOfWallClock(local: string, timeZone: string): Date {
  const asUtc = Date.parse(`${local}Z`);
  const offsets = new Set([
    offsetMinutes(new Date(asUtc - DAY_MS), timeZone),
    offsetMinutes(new Date(asUtc), timeZone),
    offsetMinutes(new Date(asUtc + DAY_MS), timeZone),
  ]);
  const candidates = [...offsets]
    .map((offset) => new Date(asUtc - offset * 60_000))
    .filter((instant) => formatWallClock(wallClock(instant, timeZone)) === local);
  if (candidates.length) return new Date(Math.min(...candidates.map((d) => d.getTime())));
  // A gap: the jump happens at (local − offset before the jump).
  return new Date(asUtc - offsetMinutes(new Date(asUtc - DAY_MS), timeZone) * 60_000);
}

/** Whether the instant is the start of a bucket of this size in the zone (weeks start on Monday). */
export function isBucketStart(instant: Date, bucket: Bucket, timeZone: string): boolean {
  const w = wallClock(instant, timeZone);
  if (instant.getUTCMilliseconds() !== 0 || w.minute !== 0 || w.second !== 0) return false;
  if (bucket === 'hour') return true;
  if (w.hour !== 0) return false;
  return bucket === 'day' || w.weekday === 1;
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

/**
 * The zero-filled series of bucket starts (wall clock, `timestamp`) covering [from, to): the first and last buckets
 * may be partial. Hours the clocks skip are left out (no post can fall in them).
 */
export function bucketSeries(bucket: Bucket, timeZone: string, from: Date, to: Date): SQL {
  const step = `1 ${bucket}`;
  return sql`SELECT g AS local FROM generate_series(
      date_trunc(${bucket}, ${from}::timestamptz AT TIME ZONE ${timeZone}),
      date_trunc(${bucket}, (${to}::timestamptz - interval '1 microsecond') AT TIME ZONE ${timeZone}),
      ${step}::interval) AS g
    WHERE ${bucket} <> 'hour' OR (g AT TIME ZONE ${timeZone}) AT TIME ZONE ${timeZone} = g`;
}

/** The wall-clock `timestamp` as text PostgreSQL and instantOfWallClock agree on. */
export const wallClockText = (expression: SQL): SQL => sql`to_char(${expression}, 'YYYY-MM-DD"T"HH24:MI:SS')`;
