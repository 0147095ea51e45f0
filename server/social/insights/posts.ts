// The posts dashboard and the filtered-posts drill-down: matching posts one keyset page at a time, by engagement,
// recency or overperformance.
import { sql, type SQL } from 'drizzle-orm';
import type { PostSort } from '../../../src/contract/insights';
import type { PostsResponse } from '../../../src/contract/insights-responses';
import type { Db } from '../../db/database';
import { ApiError } from '../../errors';
import { scopeWhere } from '../scope';
import { countedBase } from './counted';
import type { InsightScope } from './request';
import { readOnly } from './transactions';
import { insightWhere, scanFrom } from './where';
import { decodeCursor, encodeCursor, type Cursor } from './cursor';
import { rollupSplit, rollupUnion } from './rollups';
import { jsonRows, postsByIds, toPost } from './rows';

export const OVERPERFORMANCE_RULE =
  "overperformance = the post's engagement ÷ its author's average engagement over the author's posts that match " +
  'the query and filters in the same date range (refinements do not change the average); 1 for an author with a ' +
  'single such post or whose posts all have no engagement';

const SORT_WORDS: Record<PostSort, string> = {
  engagement: 'most engagement first',
  recency: 'newest first',
  overperformance: `most overperforming first (${OVERPERFORMANCE_RULE})`,
};

/** Sort keys as text PostgreSQL reads back exactly: an integer, a timestamp in UTC, a float8. */
const KEY_PATTERN: Record<PostSort, RegExp> = {
  engagement: /^\d{1,12}$/,
  recency: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/,
  overperformance: /^\d+(\.\d+)?(e[+-]?\d+)?$/,
};

type PageRow = {
  id: number;
  k: string;
  score?: number;
};

export function pageQuery(context: InsightScope, sort: PostSort, limit: number, cursor: Cursor | null): SQL {
  const after = (expression: SQL, cast: SQL) =>
    cursor ? sql`AND (${expression}, id) < (${cursor.key}::${cast}, ${cursor.ties[0]!})` : sql``;
  if (sort === 'overperformance') {
    // The average is over the scope without refinements; `picked` marks the rows the refinements keep.
    const picked = context.refine ?? sql`true`;
    return sql`WITH s AS MATERIALIZED (
        SELECT p.id, p.author_id, p.engagement, ${picked} AS picked
        FROM ${scanFrom(context)} WHERE ${scopeWhere(context.scope)}),
      w AS (
        SELECT id, picked, CASE WHEN count(*) OVER author = 1 OR sum(engagement) OVER author = 0 THEN 1::float8
          ELSE (engagement::float8 * count(*) OVER author) / (sum(engagement) OVER author)::float8 END AS score
        FROM s WINDOW author AS (PARTITION BY author_id)),
      m AS MATERIALIZED (SELECT id, score FROM w WHERE picked)
      SELECT (SELECT count(*) FROM m)::int AS total,
        ${jsonRows(sql`SELECT id, score::text AS k, score FROM m WHERE true ${after(sql`score`, sql`float8`)}
          ORDER BY score DESC, id DESC LIMIT ${limit + 1}`)} AS page`;
  }
  const key =
    sort === 'engagement'
      ? { expression: sql`engagement`, text: sql`engagement::text`, cast: sql`int` }
      : {
          expression: sql`posted_at`,
          text: sql`to_char(posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
          cast: sql`timestamptz`,
        };
  const split = rollupSplit(context, 'hour');
  if (split) {
    // The total from the hourly rollup; the page from the first matching posts of the sort's index.
    const total = rollupUnion(
      context,
      split,
      (where) => sql`SELECT p.posts FROM post_hours p WHERE ${where}`,
      (where) => sql`SELECT 1 FROM posts p WHERE ${where}`,
    );
    return sql`SELECT (SELECT coalesce(sum(n), 0) FROM (${total}) t (n))::int AS total,
      ${jsonRows(sql`SELECT p.id, ${key.text} AS k FROM posts p
        WHERE ${insightWhere(context)} ${after(key.expression, key.cast)}
        ORDER BY ${key.expression} DESC, p.id DESC LIMIT ${limit + 1}`)} AS page`;
  }
  return sql`WITH m AS MATERIALIZED (
      SELECT p.id, p.engagement, p.posted_at FROM ${scanFrom(context)} WHERE ${insightWhere(context)})
    SELECT (SELECT count(*) FROM m)::int AS total,
      ${jsonRows(sql`SELECT id, ${key.text} AS k FROM m WHERE true ${after(key.expression, key.cast)}
        ORDER BY ${key.expression} DESC, id DESC LIMIT ${limit + 1}`)} AS page`;
}

export async function postList(
  db: Db,
  context: InsightScope,
  options: { sort: PostSort; limit: number; cursor?: string | undefined },
): Promise<PostsResponse> {
  const { sort, limit } = options;
  const cursor = options.cursor ? decodeCursor(options.cursor, context, sort) : null;
  if (cursor && (!KEY_PATTERN[sort].test(cursor.key) || cursor.ties.length !== 1)) {
    throw new ApiError(400, 'invalid_cursor', 'This cursor is not valid.');
  }
  const { scope, timeZone } = context;
  return readOnly(
    db,
    async (tx) => {
      const [row] = (
        await tx.execute<{ total: number; page: PageRow[] }>(pageQuery(context, sort, limit, cursor))
      ).rows;
      const page = row!.page.slice(0, limit);
      const more = row!.page.length > limit;
      const posts = await postsByIds(
        tx,
        page.map((p) => p.id),
      );
      const last = page.at(-1);
      return {
        time_zone: timeZone,
        range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
        query: context.normalized,
        counted: `${countedBase(context)}; ${SORT_WORDS[sort]}, ties by the higher id; engagement = likes + comments + shares.`,
        sort,
        total: row!.total,
        posts: page.map((p) => toPost(posts.get(p.id)!, sort === 'overperformance' ? p.score! : null)),
        next_cursor:
          more && last
            ? encodeCursor(
                { key: last.k, ties: [last.id], from: scope.from.toISOString(), to: scope.to.toISOString() },
                context,
                sort,
              )
            : null,
      };
    },
    { timeZone },
  );
}
