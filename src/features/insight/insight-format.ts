// How the dashboards write numbers, changes and chart buckets: numbers in the reader's locale, buckets in the
// workspace's time zone. Instants and ranges are written by the product's one formatter (src/lib/date-time.ts).
import { formatCompactNumber } from '@/lib/compact-number';

const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

export const formatCompact = formatCompactNumber;
export const formatWhole = (value: number) => whole.format(value);
export const formatDecimal = (value: number | null) => (value === null ? '–' : decimal.format(value));
/** A share (0–1) as a percentage. */
export const formatShare = (value: number | null) => (value === null ? '–' : percent.format(value));
/** A change in percent as the API gives it (12.5 = +12.5 %), signed; null when there was nothing before. */
export const formatChange = (changePct: number | null) =>
  changePct === null ? 'new' : `${changePct > 0 ? '+' : ''}${decimal.format(changePct)} %`;

const formats = new Map<string, Intl.DateTimeFormat>();
function format(key: string, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const id = `${key}|${timeZone}`;
  let found = formats.get(id);
  if (!found) {
    found = new Intl.DateTimeFormat(undefined, { ...options, timeZone });
    formats.set(id, found);
  }
  return found;
}

/** A chart bucket's label: the hour for hourly buckets, the day otherwise ("Mon 3 Nov", "3 Nov 14:00"). */
export function formatBucket(iso: string, bucket: 'hour' | 'day' | 'week', timeZone: string): string {
  if (bucket === 'hour') {
    return format('hour', timeZone, {
      day: 'numeric',
      month: 'short',
      hour: '2-digit',
      minute: '2-digit',
    }).format(new Date(iso));
  }
  const label = format('day', timeZone, { weekday: 'short', day: 'numeric', month: 'short' }).format(
    new Date(iso),
  );
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
