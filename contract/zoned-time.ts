// Wall-clock time in an IANA zone, for the SPA and the server alike: the wall clock of an instant, the instant a
// wall-clock time starts at (the earlier one when the clocks go back, the jump when they skip it), the day an instant
// falls on, and a fast formatter for many instants. Intl is the only source of zone rules; PostgreSQL's agree with it
// for every zone a workspace can choose (time-zones.ts lists those).

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The verdict for each zone name seen: checking one makes an Intl.DateTimeFormat, which costs more than a dashboard
 * answered from the cache does otherwise. Names come from workspaces' settings, so there are few; past the bound,
 * a new name is checked each time.
 */
const verdicts = new Map<string, string>();
const KEPT_VERDICTS = 1000;

/** The workspace's IANA zone when the runtime knows it, else UTC (a chart must never fail over a bad setting). */
export function usableTimeZone(timeZone: string): string {
  const known = verdicts.get(timeZone);
  if (known !== undefined) return known;
  let usable = 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    usable = timeZone;
  } catch {
    // Not a zone this runtime knows: UTC.
  }
  if (verdicts.size < KEPT_VERDICTS) verdicts.set(timeZone, usable);
  return usable;
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
function offsetMinutes(instant: Date, timeZone: string): number {
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
  // A gap: the jump lies between (local − offset after it), still before the jump, and (local − offset before it),
  // already after it when `local` is inside the gap rather than at its start (Pacific/Chatham's 03:00 on a day its
  // clocks go from 02:45 to 03:45): the first instant of the new offset, found by halving.
  const before = offsetMinutes(new Date(asUtc - DAY_MS), timeZone);
  const after = offsetMinutes(new Date(asUtc + DAY_MS), timeZone);
  let [lo, hi] = [asUtc - after * 60_000, asUtc - before * 60_000];
  if (lo >= hi || offsetMinutes(new Date(hi), timeZone) === before) return new Date(hi);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetMinutes(new Date(mid), timeZone) === after) hi = mid;
    else lo = mid;
  }
  return new Date(hi);
}

/** The first instant of a day (YYYY-MM-DD) in the zone: its midnight, or the jump when the clocks skip midnight. */
export const startOfDayIn = (day: string, timeZone: string): Date =>
  instantOfWallClock(`${day}T00:00:00`, timeZone);

/** The day (YYYY-MM-DD) an instant falls on in the zone. */
export const dayIn = (instant: Date, timeZone: string): string =>
  formatWallClock(wallClock(instant, timeZone)).slice(0, 10);
