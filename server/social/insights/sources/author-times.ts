// Per-author figures (an author's matching posts and their engagement over a range) read from author_post_times
// (migration 0009) instead of the posts, when the condition reads only what a row of it keeps: the platform and the
// language. A row holds the times of an author's posts (in one platform and language) ascending, and the running sum
// of their engagement after a leading 0; the posts in [from, to) are then two binary searches apart (width_bucket)
// and their engagement two subscripts. The cost is one pass over the rows (about 78,000 for 1M posts) whatever the
// range, where the posts cost a row each: the rows serve ranges of at least AUTHOR_TIMES_MIN_DAYS.
import { sql, type SQL } from 'drizzle-orm';
import { scopeConditions } from '../../scope';
import type { InsightScope } from '../request';
import { jsonRows } from '../rows';
import { previousPeriod } from '../where';
import { keepsCondition, type Source } from './source';

/**
 * Measured on 1M posts (`bench:insights`, every post, p50): over 7 days the people dashboard took about as long from
 * either, over 14 days 155 ms from these rows and 196 ms from the posts; the overview over 7 days was faster from the
 * posts (124 against 172 ms), which it reads on two connections.
 */
export const AUTHOR_TIMES_MIN_DAYS = 10;

const DAY_MS = 86_400_000;

/**
 * Whether author_post_times gives the per-author figures over [from, to): the query reads only platform: and lang:,
 * the refinements only the platform and the language, and the range is long enough to be worth it.
 */
export function authorTimesServe(context: InsightScope, from: Date, to: Date): boolean {
  return (
    keepsCondition(context, ['platform', 'language']) &&
    to.getTime() - from.getTime() >= AUTHOR_TIMES_MIN_DAYS * DAY_MS
  );
}

/** The per-author figures of the request's range (and of the previous period, of the same length). */
export const authorPostTimes: Source<true> = {
  serves: (context) => authorTimesServe(context, context.scope.from, context.scope.to) || null,
};

/**
 * 1 µs before `instant` (timestamps are microseconds), where width_bucket counts the elements before `instant`.
 * A Date holds milliseconds, so this is its millisecond before, plus 999 µs.
 */
const justBefore = (instant: Date) =>
  sql`${`${new Date(instant.getTime() - 1).toISOString().slice(0, -1)}999Z`}::timestamptz`;

/**
 * Per author with matching posts between the first and the last of `bounds` (ascending): author_id, followers f,
 * then for the period between bounds i and i + 1 the posts n<i> and their engagement e<i> (both bigint, 0 when
 * none). An author's only row (`sole`) gives their figures as it is; the rows of authors with several (languages)
 * are summed, engagement as float8 (exact below 2^53, and the hash aggregate's states stay by value). Grouping only
 * those rows took a third less time than grouping them all.
 */
function authorTimesPeriods(context: InsightScope, bounds: Date[]): SQL {
  const conditions = [...scopeConditions(context.scope), ...(context.refine ? [context.refine] : [])];
  // Each use of an array column unpacks it again: a copy when it is small, decompressing it when it is stored
  // compressed (an author with hundreds of posts). Concatenating nothing unpacks each array once, and OFFSET 0
  // keeps each subquery whole, so that happens once per row, as does each binary search. Measured on 1M posts,
  // the overview's statement over 90 days took 5 to 10% less time.
  const rows = (sole: boolean) => sql`SELECT p.author_id, p.followers, p.running, ${sql.join(
    bounds.map((bound, i) => sql`width_bucket(${justBefore(bound)}, p.posted_at) AS ${sql.raw(`b${i}`)}`),
    sql`, `,
  )}
    FROM (SELECT p.author_id, p.followers, p.running || '{}'::bigint[] AS running,
        p.posted_at || '{}'::timestamptz[] AS posted_at
      FROM author_post_times p WHERE ${sql.join([...conditions, sole ? sql`p.sole` : sql`NOT p.sole`], sql` AND `)}
      OFFSET 0) p
    OFFSET 0`;
  const at = bounds.map((_, i) => sql.raw(`x.b${i}`));
  const figures = (grouped: boolean) =>
    sql.join(
      bounds.slice(1).map((_, i) => {
        const [lo, hi, n, e] = [at[i]!, at[i + 1]!, sql.raw(`n${i}`), sql.raw(`e${i}`)];
        return grouped
          ? sql`sum(${hi} - ${lo})::bigint AS ${n},
            sum((x.running[${hi} + 1] - x.running[${lo} + 1])::float8)::bigint AS ${e}`
          : sql`(${hi} - ${lo})::bigint AS ${n}, x.running[${hi} + 1] - x.running[${lo} + 1] AS ${e}`;
      }),
      sql`, `,
    );
  const some = sql`${at.at(-1)!} > ${at[0]!}`;
  return sql`SELECT x.author_id, x.followers AS f, ${figures(false)} FROM (${rows(true)}) x WHERE ${some}
    UNION ALL
    SELECT x.author_id, any_value(x.followers) AS f, ${figures(true)} FROM (${rows(false)}) x WHERE ${some}
    GROUP BY x.author_id`;
}

/**
 * The overview's totals of both periods and its top people: one row per author with the previous period's posts and
 * engagement (n0, e0) beside the current one's (n1, e1) and the followers (f); a period's mentions are its posts,
 * its unique authors those with a post in it, its potential reach their followers.
 */
export function overviewAuthors(context: InsightScope, top: number) {
  const bounds = [previousPeriod(context).from, context.scope.from, context.scope.to];
  const totals = [false, true].map((cur, i) => {
    const [n, e] = [sql.raw(`n${i}`), sql.raw(`e${i}`)];
    return sql`SELECT ${sql.raw(String(cur))} AS cur, sum(${n})::bigint AS mentions,
        count(*) FILTER (WHERE ${n} > 0)::bigint AS authors, sum(${e})::bigint AS engagement,
        coalesce(sum(f) FILTER (WHERE ${n} > 0), 0)::bigint AS reach
      FROM pa HAVING sum(${n}) > 0`;
  });
  return sql`WITH pa AS MATERIALIZED (${authorTimesPeriods(context, bounds)})
    SELECT ${jsonRows(sql.join(totals, sql` UNION ALL `))} AS periods,
      ${jsonRows(sql`SELECT author_id, n1 AS mentions, e1 AS engagement FROM pa WHERE n1 > 0
        ORDER BY n1 DESC, e1 DESC, author_id LIMIT ${top}`)} AS top_people`;
}

/** Per author with matching posts in the range: their posts (n), their engagement (e) and followers (f). */
export function authorFigures(context: InsightScope) {
  const { from, to } = context.scope;
  return sql`SELECT author_id, f, n0 AS n, e0 AS e FROM (${authorTimesPeriods(context, [from, to])}) t`;
}
