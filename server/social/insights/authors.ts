// Per-author figures (an author's matching posts and their engagement over a range) read from author_post_times
// (migration 0009) instead of the posts, when the condition reads only what a row of it keeps: the platform and the
// language. A row holds the times of an author's posts (in one platform and language) ascending, and the running sum
// of their engagement after a leading 0; the posts in [from, to) are then two binary searches apart (width_bucket)
// and their engagement two subscripts. The cost is one pass over the rows (about 78,000 for 1M posts) whatever the
// range, where the posts cost a row each: the rows serve ranges of at least AUTHOR_TIMES_MIN_DAYS.
import { sql, type SQL } from 'drizzle-orm';
import type { Refine } from '../../../src/api/contract/insights';
import { scopeConditions } from '../scope';
import { leafFields, type InsightScope } from './context';

/**
 * Measured on 1M posts (README.md beside this file, "Per-author figures"): people over 7 days took about the same
 * time from either, and from the posts twice as long over 14 days.
 */
export const AUTHOR_TIMES_MIN_DAYS = 10;

const DAY_MS = 86_400_000;
const keptRefine = (refine: Refine) => refine.field === 'platform' || refine.field === 'language';

/**
 * Whether author_post_times gives the per-author figures over [from, to): the query reads only platform: and lang:,
 * the refinements only the platform and the language, and the range is long enough to be worth it.
 */
export function authorTimesServe(context: InsightScope, from: Date, to: Date): boolean {
  const { scope, refines } = context;
  if (scope.query && !leafFields(scope.query).every((field) => field === 'platform' || field === 'lang')) {
    return false;
  }
  return refines.every(keptRefine) && to.getTime() - from.getTime() >= AUTHOR_TIMES_MIN_DAYS * DAY_MS;
}

/**
 * 1 µs before `instant` (timestamps are microseconds), where width_bucket counts the elements before `instant`.
 * A Date holds milliseconds, so this is its millisecond before, plus 999 µs.
 */
const justBefore = (instant: Date) =>
  sql`${`${new Date(instant.getTime() - 1).toISOString().slice(0, -1)}999Z`}::timestamptz`;

/**
 * Per author with matching posts between the first and the last of `bounds` (ascending): author_id, then for the
 * period between bounds i and i + 1 the posts n<i> and their engagement e<i> (both bigint, 0 when none). An author
 * with several rows (languages) is summed; engagement is summed as float8, exact below 2^53, which keeps the hash
 * aggregate's states by value.
 */
export function authorTimesPeriods(context: InsightScope, bounds: Date[]): SQL {
  const conditions = [...scopeConditions(context.scope), ...(context.refine ? [context.refine] : [])];
  const at = bounds.map((_, i) => sql.raw(`x.b${i}`));
  const sums = bounds.slice(1).map((_, i) => {
    const [lo, hi] = [at[i]!, at[i + 1]!];
    return sql`sum(${hi} - ${lo})::bigint AS ${sql.raw(`n${i}`)},
      sum((x.running[${hi} + 1] - x.running[${lo} + 1])::float8)::bigint AS ${sql.raw(`e${i}`)}`;
  });
  // OFFSET 0 keeps the subquery whole, so each width_bucket runs once per row.
  return sql`SELECT x.author_id, ${sql.join(sums, sql`, `)}
    FROM (SELECT p.author_id, p.running, ${sql.join(
      bounds.map((bound, i) => sql`width_bucket(${justBefore(bound)}, p.posted_at) AS ${sql.raw(`b${i}`)}`),
      sql`, `,
    )}
      FROM author_post_times p ${conditions.length ? sql`WHERE ${sql.join(conditions, sql` AND `)}` : sql``}
      OFFSET 0) x
    WHERE ${at.at(-1)!} > ${at[0]!}
    GROUP BY x.author_id`;
}
