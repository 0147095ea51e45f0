// Dashboard time on the store, grouped exactly as PostgreSQL's date_trunc of `posted_at AT TIME ZONE zone`: posts are
// grouped by their 15-minute UTC quarter first (the posts table's `q`), and only the quarters are mapped to the
// workspace zone's wall-clock buckets, which costs one time-zone conversion a quarter instead of one a post. That is
// exact when every quarter lies in one wall-clock hour: the zone's offset a multiple of 15 minutes and its changes on
// a quarter's boundary, true of every zone's rules today (Asia/Kolkata +5:30, Pacific/Chatham +12:45/+13:45, the
// DST changes at whole or quarter hours). Where it is not (an old local mean time, say), the posts are grouped by
// their second instead, and the figures stay exact.
import type { Bucket } from '@contract/insights';
import { wallClock, instantOfWallClock } from '@contract/zoned-time';
import { PLATFORM_VALUES } from '@contract/social-scope';
import { QUARTER_MS } from '../layout';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const STEP_MS: Record<Bucket, number> = { hour: HOUR_MS, day: DAY_MS, week: 7 * DAY_MS };

/** The wall-clock time of `seconds` (a UTC instant in whole seconds, SQL) in the zone `zone` (a placeholder). */
const localTime = (seconds: string, zone: string) => `toDateTime(${seconds}, ${zone})`;

/**
 * The wall-clock start of the bucket `seconds` falls in, as text "YYYY-MM-DDTHH:MM:SS", the same text
 * PostgreSQL's to_char of date_trunc gives (weeks start on Monday).
 */
export function localBucketSql(bucket: Bucket, seconds: string, zone: string): string {
  const t = localTime(seconds, zone);
  switch (bucket) {
    case 'hour':
      return `formatDateTime(${t}, '%Y-%m-%dT%H:00:00')`;
    case 'day':
      return `formatDateTime(${t}, '%Y-%m-%dT00:00:00')`;
    case 'week':
      return `concat(toString(toMonday(toDate(${t}))), 'T00:00:00')`;
  }
}

/** The ISO day of the week (1 = Monday) and the hour of the day (0–23) of `seconds` in the zone. */
export const dayOfWeekSql = (seconds: string, zone: string) => `toDayOfWeek(${localTime(seconds, zone)}, 0)`;
export const hourOfDaySql = (seconds: string, zone: string) => `toHour(${localTime(seconds, zone)})`;

/** A post's instant in whole seconds (for per-post tests such as a date or hour-of-week refinement). */
export const POST_SECONDS = 'intDiv(p.ts, 1000)';

/**
 * What a timeline groups the posts by before mapping to wall-clock buckets: `key` over `posts p`, and `seconds`, the
 * key's first instant in whole seconds over the grouped column `k`.
 */
export interface TimeKey {
  key: string;
  seconds: string;
}
const BY_QUARTER: TimeKey = { key: 'p.q', seconds: 'toInt64(k) * 900' };
const BY_SECOND: TimeKey = { key: POST_SECONDS, seconds: 'k' };

/** The zone's offset (ms east of UTC) at an instant, to the second. */
function offsetMs(ms: number, timeZone: string): number {
  const w = wallClock(new Date(ms), timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000;
}

/** Verdicts per zone and UTC day: whether every quarter of that day lies in one wall-clock hour. */
const quarterDays = new Map<string, boolean>();
const KEPT_DAYS = 100_000;

function quartersKeepHours(day: number, timeZone: string): boolean {
  const name = `${timeZone} ${day}`;
  const known = quarterDays.get(name);
  if (known !== undefined) return known;
  const [start, end] = [day * DAY_MS, (day + 1) * DAY_MS];
  const [before, after] = [offsetMs(start, timeZone), offsetMs(end, timeZone)];
  let keeps = before % QUARTER_MS === 0 && after % QUARTER_MS === 0;
  if (keeps && before !== after) {
    // The first instant of the new offset (zones change at most once a day): on a quarter's boundary?
    let [lo, hi] = [start, end];
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (offsetMs(mid, timeZone) === before) lo = mid;
      else hi = mid;
    }
    keeps = hi % QUARTER_MS === 0;
  }
  if (quarterDays.size < KEPT_DAYS) quarterDays.set(name, keeps);
  return keeps;
}

/**
 * A value per quarter of [from, to) as one constant array, so that a post's value is an array element rather than a
 * group: `value` maps a quarter's first second (SQL) to the value, evaluated once per quarter of the range; `of` is the
 * value of a post's quarter (p.q, within the range by the statement's condition). Only where timeKey groups by
 * quarter (the value is then the same for every instant of the quarter); `from` and `to` are Int64 placeholders of
 * the range's bounds in ms.
 */
export function perQuarter(name: string, from: string, to: string, value: (seconds: string) => string) {
  const first = `intDiv(${from}, ${QUARTER_MS})`;
  const quarters = `toUInt64(intDiv(${to} - 1, ${QUARTER_MS}) - ${first} + 1)`;
  return {
    with: `arrayMap(i -> ${value(`(${first} + i) * 900`)}, range(${quarters})) AS ${name}`,
    of: `${name}[p.q - ${first} + 1]`,
  };
}

/** The posts' platforms (PostgreSQL's enum is made from this list, and the store's rows are PostgreSQL's). */
const PLATFORM_LIST = `[${PLATFORM_VALUES.map((platform) => {
  if (!/^[a-z]+$/.test(platform)) throw new Error(`Not a platform name: ${platform}`);
  return `'${platform}'`;
}).join(',')}]`;
const PLATFORM_SLOTS = 16;
if (PLATFORM_VALUES.length >= PLATFORM_SLOTS) throw new Error('More platforms than keyWithPlatform packs');

/**
 * A timeline key (TimeKey.key) and the post's platform as one Int64 (key × 16 + the platform's place in the list, 0
 * for none of them), over `posts p`: the same groups as GROUP BY key, platform, hashed as one integer rather than as
 * a number and a string (at 1M over 90 days, the overview's timeline took 215–250 ms of CPU grouped by the pair and
 * 80–100 by this). A group's key and platform are then any() of its posts'.
 */
export const keyWithPlatform = (key: string) =>
  `(toInt64(${key}) * ${PLATFORM_SLOTS} + transform(p.platform, ${PLATFORM_LIST}, ` +
  `range(1, ${PLATFORM_VALUES.length + 1}), 0))`;

/** Whether a TimeKey groups by quarter (perQuarter applies). */
export const byQuarter = (time: TimeKey) => time === BY_QUARTER;

/** How a timeline over [from, to) in the zone groups its posts: by quarter where that is exact, else by second. */
export function timeKey(timeZone: string, from: Date, to: Date): TimeKey {
  for (let day = Math.floor(from.getTime() / DAY_MS); day * DAY_MS < to.getTime(); day += 1) {
    if (!quartersKeepHours(day, timeZone)) return BY_SECOND;
  }
  return BY_QUARTER;
}

/** The wall-clock bucket start (naive ms, the wall clock read as UTC) of an instant. */
function truncated(bucket: Bucket, instant: Date, timeZone: string): number {
  const w = wallClock(instant, timeZone);
  if (bucket === 'hour') return Date.UTC(w.year, w.month - 1, w.day, w.hour);
  const day = Date.UTC(w.year, w.month - 1, w.day);
  return bucket === 'day' ? day : day - (w.weekday - 1) * DAY_MS;
}

const naiveText = (ms: number) => new Date(ms).toISOString().slice(0, 19);

/**
 * The wall-clock bucket an instant falls in, as text "YYYY-MM-DDTHH:MM:SS": what localBucketSql and PostgreSQL's
 * date_trunc group it by (weeks start on Monday).
 */
export const bucketLocal = (instant: Date, bucket: Bucket, timeZone: string): string =>
  naiveText(truncated(bucket, instant, timeZone));

/**
 * The wall-clock starts of every bucket [from, to) touches, as PostgreSQL's bucketSeries lists them
 * (server/social/insights/time.ts): a generate_series of wall-clock times, the hours the clocks skip whole left out.
 * An hour the clocks skip only part of (Pacific/Chatham's 03:00 when they go from 02:45 to 03:45, Australia/Lord_Howe's
 * 02:00 when they go from 02:00 to 02:30) is kept: its first instant (the jump, instantOfWallClock) reads that hour.
 */
export function bucketStarts(bucket: Bucket, timeZone: string, from: Date, to: Date): string[] {
  const last = truncated(bucket, new Date(to.getTime() - 1), timeZone);
  const starts: string[] = [];
  for (let ms = truncated(bucket, from, timeZone); ms <= last; ms += STEP_MS[bucket]) {
    const local = naiveText(ms);
    if (
      bucket !== 'hour' ||
      naiveText(truncated('hour', instantOfWallClock(local, timeZone), timeZone)) === local
    )
      starts.push(local);
  }
  return starts;
}
