// Discover's SQL and its rows: a page's posts looked up by the ids the analytics store named (search.ts). Pages are in
// keyset order, never OFFSET: the next page starts strictly after the last row's (key, id).
//   recency:    ORDER BY p.posted_at DESC, p.id DESC
//   engagement: ORDER BY p.engagement DESC, p.id DESC
import { sql, type SQL } from 'drizzle-orm';
import { QUERY_FROM } from '@server/query/index';
import type { DiscoverProfile, DiscoverSort } from '@contract/discover';
import { POST_COLUMNS, toAuthor, type AuthorRow, type PostRow } from '../post-rows';
import type { Cursor } from './cursor';

/** A post's row with its sort key for the cursor: posted_at to the microsecond. */
export type PageRow = PostRow & { posted_key: string };

const ORDER: Record<DiscoverSort, SQL> = {
  recency: sql`p.posted_at DESC, p.id DESC`,
  engagement: sql`p.engagement DESC, p.id DESC`,
};

/** Rows strictly after the cursor in the sort's order; a row comparison the (key, id) order can seek to. */
export function after(sort: DiscoverSort, cursor: Cursor): SQL {
  return sort === 'recency'
    ? sql`(p.posted_at, p.id) < (${cursor.k}::timestamptz, ${cursor.id}::bigint)`
    : sql`(p.engagement, p.id) < (${cursor.k}::integer, ${cursor.id}::bigint)`;
}

/** The post's columns (post-rows.ts) and the cursor's key. */
const PAGE_COLUMNS = sql`${POST_COLUMNS},
  to_char(p.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS posted_key`;

/**
 * One page, and one row more to know whether there is a next one: every match of `condition` (the ids the store named)
 * found first, and only then sorted, so that the planner does not walk each month's partition by the sort's index;
 * `condition` again on the page's rows, so that they are read only from the range's months.
 */
export function pageQuery(condition: SQL, sort: DiscoverSort, limit: number): SQL {
  return sql`
    WITH matches AS MATERIALIZED (
      SELECT p.id, p.posted_at, p.engagement FROM ${QUERY_FROM} WHERE ${condition}
    ), top AS (
      SELECT p.id FROM matches p ORDER BY ${ORDER[sort]} LIMIT ${limit + 1}
    )
    SELECT ${PAGE_COLUMNS} FROM top JOIN posts p ON p.id = top.id JOIN profiles a ON a.id = p.author_id
    WHERE ${condition}
    ORDER BY ${ORDER[sort]}`;
}

export function toProfile(
  row: AuthorRow & { matching_posts: number; engagement: string | number },
): DiscoverProfile {
  return {
    ...toAuthor(row),
    matching_posts: row.matching_posts,
    engagement: Number(row.engagement),
  };
}
