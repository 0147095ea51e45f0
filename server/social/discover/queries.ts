// Discover's SQL and its rows. Pages are in keyset order, never OFFSET: the next page starts strictly after the last
// row's (key, id).
//   recency:    ORDER BY p.posted_at DESC, p.id DESC    (posts_posted_authors_idx, scanned backwards)
//   engagement: ORDER BY p.engagement DESC, p.id DESC   (posts_engagement_idx on (engagement, id))
import { sql, type SQL } from 'drizzle-orm';
import { QUERY_FROM } from '@server/query/index';
import type { DiscoverProfile, DiscoverSort } from '@contract/discover';
import { DISCOVER_PROFILES } from '@contract/discover';
import { AUTHOR_COLUMNS, POST_COLUMNS, toAuthor, type AuthorRow, type PostRow } from '../post-rows';
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
 * One page, and one row more to know whether there is a next one. `walk`: the planner may walk the sort's index and
 * stop after limit + 1 matches (fast when matches are common). Otherwise every match is found first (bitmap index
 * scans) and only then sorted: fast when matches are rare, where the walk would visit most of the index.
 */
export function pageQuery(condition: SQL, sort: DiscoverSort, limit: number, walk = true): SQL {
  if (walk) {
    return sql`SELECT ${PAGE_COLUMNS} FROM ${QUERY_FROM} WHERE ${condition}
      ORDER BY ${ORDER[sort]} LIMIT ${limit + 1}`;
  }
  return sql`
    WITH matches AS MATERIALIZED (
      SELECT p.id, p.posted_at, p.engagement FROM ${QUERY_FROM} WHERE ${condition}
    ), top AS (
      SELECT p.id FROM matches p ORDER BY ${ORDER[sort]} LIMIT ${limit + 1}
    )
    SELECT ${PAGE_COLUMNS} FROM top JOIN posts p ON p.id = top.id JOIN profiles a ON a.id = p.author_id
    ORDER BY ${ORDER[sort]}`;
}

/** The authors with the most matching posts (then the most followers), counted by author id before the join. */
export function profilesQuery(where: SQL): SQL {
  return sql`
    SELECT ${AUTHOR_COLUMNS}, m.matching_posts, m.engagement
    FROM (
      SELECT p.author_id, count(*)::int AS matching_posts, sum(p.engagement)::bigint AS engagement
      FROM ${QUERY_FROM} WHERE ${where} GROUP BY p.author_id
    ) AS m JOIN profiles a ON a.id = m.author_id
    ORDER BY m.matching_posts DESC, a.followers DESC, a.id ASC
    LIMIT ${DISCOVER_PROFILES}`;
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
