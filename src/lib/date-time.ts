// The product's one way of writing days and instants, on every screen: day month year and a 24-hour clock
// ("3 Nov 2026, 14:05 CET"), in the time zone the caller passes (a workspace's, or the reader's where there is no
// workspace), and the zone named wherever a time is shown. The words are English like the rest of the product.

/** An instant as the APIs give it: unix seconds (the internal API), an ISO 8601 string (the social API), or a Date. */
export type Instant = number | string | Date;

const LOCALE = 'en-GB';

const DAY: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', year: 'numeric' };
const CLOCK: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
const SHORT_DAY: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short' };
const SHAPES = {
  date: DAY,
  dateTime: { ...DAY, ...CLOCK, timeZoneName: 'short' },
  time: { ...CLOCK, second: '2-digit', timeZoneName: 'short' },
  // Where the year is plain from around it (a chart's axis, a table of the last days), the same without it.
  shortDay: SHORT_DAY,
  weekday: { weekday: 'short', ...SHORT_DAY },
  shortDateTime: { ...SHORT_DAY, ...CLOCK, timeZoneName: 'short' },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

// Making a formatter costs far more than using one; a page writes hundreds of instants in a few zones.
const formats = new Map<string, Intl.DateTimeFormat>();
function formatter(shape: keyof typeof SHAPES, timeZone: string): Intl.DateTimeFormat {
  const key = `${shape}|${timeZone}`;
  let found = formats.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(LOCALE, { ...SHAPES[shape], timeZone });
    formats.set(key, found);
  }
  return found;
}

const CALENDAR_DAY = /^\d{4}-\d{2}-\d{2}$/;

const toDate = (at: Instant): Date =>
  at instanceof Date ? at : new Date(typeof at === 'number' ? at * 1000 : at);

/** A day: "3 Nov 2026" (the day it is in the zone). */
export const formatDate = (at: Instant, timeZone: string) => formatter('date', timeZone).format(toDate(at));

/** An instant: "3 Nov 2026, 14:05 CET"; "—" when there is none. */
export const formatDateTime = (at: Instant | null, timeZone: string) =>
  at === null ? '—' : formatter('dateTime', timeZone).format(toDate(at));

/** A time of day to the second, for logs read alongside a day shown elsewhere: "14:05:09 CET". */
export const formatTime = (at: Instant, timeZone: string) => formatter('time', timeZone).format(toDate(at));

/**
 * A day where the year is plain from around it: "3 Nov", or with the weekday "Mon 3 Nov". A calendar day as
 * "YYYY-MM-DD" is written as it is (whatever the zone).
 */
export function formatShortDay(at: Instant, timeZone: string, options: { weekday?: boolean } = {}): string {
  const shape = options.weekday ? 'weekday' : 'shortDay';
  return typeof at === 'string' && CALENDAR_DAY.test(at)
    ? formatter(shape, 'UTC').format(new Date(`${at}T00:00:00Z`))
    : formatter(shape, timeZone).format(toDate(at));
}

/** An instant where the year is plain from around it: "3 Nov, 14:05 CET". */
export const formatShortDateTime = (at: Instant, timeZone: string) =>
  formatter('shortDateTime', timeZone).format(toDate(at));

/** A range of instants: "1 Nov 2026, 14:00 CET – 22 Nov 2026, 14:00 CET" (each end with its own offset). */
export const formatDateTimeRange = (range: { from: Instant; to: Instant }, timeZone: string) =>
  `${formatDateTime(range.from, timeZone)} – ${formatDateTime(range.to, timeZone)}`;

/** The reader's own zone, for screens that belong to no workspace (the scraping area). */
export const readerTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
