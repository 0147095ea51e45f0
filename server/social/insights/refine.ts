// Drill-down refinements as SQL conditions over `posts p JOIN profiles a` (every value a bind parameter), and as words
// for the `counted` sentence. A refinement's values are ORed; `exclude` keeps the posts that match none of them (a
// post whose value is unknown, such as a null language, is kept by an exclusion).
import { sql, type SQL } from 'drizzle-orm';
import type { Bucket, Refine } from '@contract/insights';
import { ApiError } from '@server/errors';
import { tsqueryOperand } from '@server/query/compile';
import { BUCKET_MS, bucketOf, dayOfWeekOf, hourOfDayOf, isBucketStart } from './time';
import { bucketLocal } from '@server/analytics/insights/time';
import { correctedLabel, type Corrections } from '../corrections';

const invalidRefine = (message: string) => new ApiError(400, 'invalid_refine', message);

/** Clocks move by at most 2 hours at a DST change: the index range is widened by 3 on each side. */
const SLACK_MS = 3 * 3_600_000;

function dateCondition(bucket: Bucket, value: string, timeZone: string): SQL {
  const start = new Date(value);
  if (!isBucketStart(start, bucket, timeZone)) {
    throw invalidRefine(
      `${value} is not the start of ${bucket === 'hour' ? 'an hour' : `a ${bucket}`} in ${timeZone}` +
        (bucket === 'week' ? ' (weeks start on Monday at 00:00)' : ''),
    );
  }
  const local = bucketLocal(start, bucket, timeZone);
  const lo = new Date(start.getTime() - SLACK_MS);
  const hi = new Date(start.getTime() + BUCKET_MS[bucket] + SLACK_MS);
  // The exact test is the chart's own grouping; the range lets the posted_at index narrow the scan.
  return sql`(p.posted_at >= ${lo} AND p.posted_at < ${hi} AND ${bucketOf(bucket)} = ${local}::timestamp)`;
}

const strip = (value: string, prefix: string) =>
  prefix && value.startsWith(prefix) ? value.slice(prefix.length) : value;
const lower = (values: string[], prefix = '') => [
  ...new Set(values.map((v) => strip(v, prefix).toLowerCase())),
];

function followerCondition(range: { min?: number; max?: number }): SQL {
  if (range.min === undefined && range.max === undefined) {
    throw invalidRefine('A follower range needs min, max or both');
  }
  if (range.min !== undefined && range.max !== undefined && range.min >= range.max) {
    throw invalidRefine(`A follower range needs min < max (got ${range.min} and ${range.max})`);
  }
  const parts: SQL[] = [];
  if (range.min !== undefined) parts.push(sql`a.followers >= ${range.min}`);
  if (range.max !== undefined) parts.push(sql`a.followers < ${range.max}`);
  return sql`(${sql.join(parts, sql` AND `)})`;
}

/** A cell of the best-time grid: the grid's own day and hour expressions (time.ts), so the counts agree exactly. */
const hourOfWeekCondition = ({ day, hour }: { day: number; hour: number }): SQL =>
  sql`(${dayOfWeekOf} = ${day} AND ${hourOfDayOf} = ${hour})`;

/** The condition a refinement's values match (before `exclude`). */
function matchCondition(refine: Refine, timeZone: string, corrections: Corrections): SQL {
  switch (refine.field) {
    case 'date':
      return sql`(${sql.join(
        refine.values.map((value) => dateCondition(refine.bucket, value, timeZone)),
        sql` OR `,
      )})`;
    case 'platform':
      return sql`p.platform::text = ANY(${sql.param(refine.values)}::text[])`;
    case 'hashtag':
      // Overlap, so the GIN index on the array serves it.
      return sql`p.hashtags && ${sql.param(lower(refine.values, '#'))}::text[]`;
    case 'mention':
      return sql`p.mentions && ${sql.param(lower(refine.values, '@'))}::text[]`;
    case 'domain':
      return sql`p.domains && ${sql.param(lower(refine.values))}::text[]`;
    case 'term': {
      // The word exactly as the full-text vector holds it (lower case), as the conversation dashboard lists it.
      const tsquery = lower(refine.values).map(tsqueryOperand).join(' | ');
      return sql`p.search @@ ${tsquery}::tsquery`;
    }
    case 'author': {
      const ids = refine.values.filter((v): v is number => typeof v === 'number');
      const handles = lower(
        refine.values.filter((v): v is string => typeof v === 'string'),
        '@',
      );
      return sql`(a.id = ANY(${sql.param(ids)}::bigint[]) OR lower(a.handle) = ANY(${sql.param(handles)}::text[]))`;
    }
    case 'sentiment':
      // As the workspace counts it: its corrections' labels where it has them.
      return sql`${correctedLabel(corrections)}::text = ANY(${sql.param(refine.values)}::text[])`;
    case 'language':
      return sql`p.language = ANY(${sql.param(refine.values)}::text[])`;
    case 'media':
      return sql`p.media::text = ANY(${sql.param(refine.values)}::text[])`;
    case 'kind':
      return sql`p.kind::text = ANY(${sql.param(refine.values)}::text[])`;
    case 'followers':
      return sql`(${sql.join(refine.values.map(followerCondition), sql` OR `)})`;
    case 'hour_of_week':
      return sql`(${sql.join(refine.values.map(hourOfWeekCondition), sql` OR `)})`;
  }
}

/** The refinements ANDed, or null when there are none. Throws a 400 for a value that cannot be a bucket start. */
export function refineWhere(refines: Refine[], timeZone: string, corrections: Corrections): SQL | null {
  if (!refines.length) return null;
  return sql.join(
    refines.map((refine) => {
      const condition = matchCondition(refine, timeZone, corrections);
      return refine.exclude ? sql`NOT coalesce(${condition}, false)` : sql`(${condition})`;
    }),
    sql` AND `,
  );
}

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
};

/** "hashtag #a or #b; not platform x; posted on Mondays 09:00–09:59 (Europe/Paris wall-clock time)" */
export function describeRefines(refines: Refine[], timeZone: string): string {
  return refines
    .map((refine) => {
      const values = (refine.values as Array<Refine['values'][number]>).map((v) => describeValue(refine, v));
      const zone = refine.field === 'hour_of_week' ? ` (${timeZone} wall-clock time)` : '';
      return `${refine.exclude ? 'not ' : ''}${NAMES[refine.field]} ${values.join(' or ')}${zone}`;
    })
    .join('; ');
}
