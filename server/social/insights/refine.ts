// Drill-down refinements: checked here (a value a refinement cannot hold is a 400 invalid_refine), matched by the
// analytics store (server/analytics/figures/scope.ts), and described in words for the `counted` sentence. A
// refinement's values are ORed; `exclude` keeps the posts that match none of them.
import type { Bucket, Refine } from '@contract/insights';
import { ApiError } from '@server/errors';
import { isBucketStart } from './time';

const invalidRefine = (message: string) => new ApiError(400, 'invalid_refine', message);

function checkDate(bucket: Bucket, value: string, timeZone: string) {
  if (!isBucketStart(new Date(value), bucket, timeZone)) {
    throw invalidRefine(
      `${value} is not the start of ${bucket === 'hour' ? 'an hour' : `a ${bucket}`} in ${timeZone}` +
        (bucket === 'week' ? ' (weeks start on Monday at 00:00)' : ''),
    );
  }
}

function checkFollowers(range: { min?: number; max?: number }) {
  if (range.min === undefined && range.max === undefined) {
    throw invalidRefine('A follower range needs min, max or both');
  }
  if (range.min !== undefined && range.max !== undefined && range.min >= range.max) {
    throw invalidRefine(`A follower range needs min < max (got ${range.min} and ${range.max})`);
  }
}

/**
 * Throws a 400 invalid_refine for a date that does not start its bucket in the workspace's zone (the store matches a
 * date by its bucket's start) or a follower range that is empty.
 */
export function checkRefines(refines: Refine[], timeZone: string): void {
  for (const refine of refines) {
    if (refine.field === 'date') for (const value of refine.values) checkDate(refine.bucket, value, timeZone);
    if (refine.field === 'followers') refine.values.forEach(checkFollowers);
  }
}

const strip = (value: string, prefix: string) =>
  prefix && value.startsWith(prefix) ? value.slice(prefix.length) : value;

const DAYS = ['Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays', 'Sundays'];
const hh = (hour: number) => String(hour).padStart(2, '0');

function describeValue(refine: Refine, value: Refine['values'][number]): string {
  if (refine.field === 'hour_of_week') {
    const { day, hour } = value as { day: number; hour: number };
    return `${DAYS[day - 1]} ${hh(hour)}:00–${hh(hour)}:59`;
  }
  if (typeof value === 'object') {
    const { min, max } = value as { min?: number; max?: number };
    if (min !== undefined && max !== undefined) return `${min} to ${max - 1}`;
    return min !== undefined ? `${min} or more` : `fewer than ${max}`;
  }
  switch (refine.field) {
    case 'hashtag':
      return `#${strip(String(value), '#').toLowerCase()}`;
    case 'mention':
      return `@${strip(String(value), '@').toLowerCase()}`;
    case 'author':
      return typeof value === 'number' ? `profile ${value}` : `@${strip(value, '@').toLowerCase()}`;
    case 'term':
      return `"${String(value).toLowerCase()}"`;
    case 'date':
      return `the ${refine.bucket} from ${value}`;
    case 'sentiment':
      return value === 'not_rated' ? 'not rated' : String(value);
    default:
      return String(value);
  }
}

const NAMES: Record<Refine['field'], string> = {
  date: 'date',
  platform: 'platform',
  hashtag: 'hashtag',
  mention: 'mention',
  term: 'word',
  author: 'author',
  sentiment: 'sentiment',
  language: 'language',
  media: 'media',
  kind: 'kind',
  domain: 'linked domain',
  followers: 'author followers',
  hour_of_week: 'posted on',
  tag: 'tagged',
};

/** "hashtag #a or #b; not platform x; posted on Mondays 09:00–09:59 (Europe/Paris wall-clock time)" */
export function describeRefines(
  refines: Refine[],
  timeZone: string,
  tagNames: ReadonlyMap<string, string> = new Map(),
): string {
  return refines
    .map((refine) => {
      const values = (refine.values as Array<Refine['values'][number]>).map((v) =>
        refine.field === 'tag' ? `"${tagNames.get(String(v)) ?? String(v)}"` : describeValue(refine, v),
      );
      const zone = refine.field === 'hour_of_week' ? ` (${timeZone} wall-clock time)` : '';
      return `${refine.exclude ? 'not ' : ''}${NAMES[refine.field]} ${values.join(' or ')}${zone}`;
    })
    .join('; ');
}
