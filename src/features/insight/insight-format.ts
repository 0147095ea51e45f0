// How the dashboards write numbers, changes and chart buckets: numbers in the reader's locale; buckets, instants and
// ranges by the product's one date formatter (src/lib/date-time.ts), in the workspace's time zone.
import { formatCompactNumber } from '@/lib/compact-number';
import { formatShortDateTime, formatShortDay } from '@/lib/date-time';

const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

export const formatCompact = formatCompactNumber;
export const formatWhole = (value: number) => whole.format(value);
export const formatDecimal = (value: number | null) => (value === null ? '–' : decimal.format(value));
/** A number of posts in words: "1 post", "1,200 posts". */
export const formatPosts = (count: number) => `${whole.format(count)} ${count === 1 ? 'post' : 'posts'}`;
/** A share (0–1) as a percentage. */
export const formatShare = (value: number | null) => (value === null ? '–' : percent.format(value));
/** A change in percent as the API gives it (12.5 = +12.5 %), signed; null when there was nothing before. */
export const formatChange = (changePct: number | null) =>
  changePct === null ? 'new' : `${changePct > 0 ? '+' : ''}${decimal.format(changePct)} %`;

/** A chart bucket's label in the workspace's zone: the hour with the zone for hourly buckets, the day otherwise. */
export function formatBucket(iso: string, bucket: 'hour' | 'day' | 'week', timeZone: string): string {
  if (bucket === 'hour') return formatShortDateTime(iso, timeZone);
  const label = formatShortDay(iso, timeZone, { weekday: true });
  return bucket === 'week' ? `Week of ${label}` : label;
}

export const DAY_NAMES = [
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
] as const;

/** What "not rated" means, said where a sentiment split shows it (docs/sentiment.md, "Not rated"). */
export const NOT_RATED_NOTE =
  'Not rated: too little text to tell (no word nor emoji, or fewer than 3 that read neutral); counted apart, not ' +
  'as neutral, and left out of the shares and the average.';
