// Discover's SQL and its rows. Pages are in keyset order, never OFFSET: the next page starts strictly after the last
// row's (key, id).
//   recency:    ORDER BY p.posted_at DESC, p.id DESC    (posts_posted_authors_idx, scanned backwards)
//   engagement: ORDER BY p.engagement DESC, p.id DESC   (posts_engagement_idx on (engagement, id))
import { sql, type SQL } from 'drizzle-orm';
import { QUERY_FROM } from '../query/index';
import type { DiscoverPost, DiscoverProfile, DiscoverSort } from '../../../src/contract/discover';
import { DISCOVER_PROFILES } from '../../../src/contract/discover';
import type { Cursor } from './cursor';

/** Raw rows: bigint columns arrive as strings, times as text formatted by PostgreSQL. */
export type PostRow = Record<string, unknown> & { id: string; posted_key: string; engagement: number };

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

const AUTHOR_COLUMNS = sql`a.id AS author_id, a.platform AS author_platform, a.handle, a.display_name, a.followers,
  a.verified, a.avatar_url, a.country`;

const POST_COLUMNS = sql`p.id, p.platform, p.external_id, p.url, p.text, p.language,
  to_char(p.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS posted_at,
  to_char(p.posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS posted_key,
  p.kind, p.media, p.likes, p.comments, p.shares, p.views, p.engagement, p.hashtags, p.mentions,
  p.sentiment, p.sentiment_label, ${AUTHOR_COLUMNS}`;

/**
 * One page, and one row more to know whether there is a next one. `walk`: the planner may walk the sort's index and
 * stop after limit + 1 matches (fast when matches are common). Otherwise every match is found first (bitmap index
 * scans) and only then sorted: fast when matches are rare, where the walk would visit most of the index.
 */
export function pageQuery(condition: SQL, sort: DiscoverSort, limit: number, walk = true): SQL {
  if (walk) {
    return sql`SELECT ${POST_COLUMNS} FROM ${QUERY_FROM} WHERE ${condition}
      ORDER BY ${ORDER[sort]} LIMIT ${limit + 1}`;
  }
  return sql`
    WITH matches AS MATERIALIZED (
      SELECT p.id, p.posted_at, p.engagement FROM ${QUERY_FROM} WHERE ${condition}
    ), top AS (
      SELECT p.id FROM matches p ORDER BY ${ORDER[sort]} LIMIT ${limit + 1}
    )
    SELECT ${POST_COLUMNS} FROM top JOIN posts p ON p.id = top.id JOIN profiles a ON a.id = p.author_id
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

const toAuthor = (row: Record<string, unknown>) => ({
  id: Number(row.author_id),
  platform: row.author_platform as DiscoverPost['platform'],
  handle: row.handle as string,
  display_name: row.display_name as string,
  followers: row.followers as number,
  verified: row.verified as boolean,
  avatar_url: row.avatar_url as string | null,
  country: row.country as string | null,
});

export function toPost(row: PostRow): DiscoverPost {
  return {
    id: Number(row.id),
    platform: row.platform as DiscoverPost['platform'],
    external_id: row.external_id as string,
    url: row.url as string | null,
    text: row.text as string,
    language: row.language as string | null,
    posted_at: row.posted_at as string,
    kind: row.kind as DiscoverPost['kind'],
    media: row.media as DiscoverPost['media'],
    likes: row.likes as number,
    comments: row.comments as number,
    shares: row.shares as number,
    views: row.views === null ? null : Number(row.views),
    engagement: row.engagement,
    hashtags: row.hashtags as string[],
    mentions: row.mentions as string[],
    sentiment: row.sentiment as number,
    sentiment_label: row.sentiment_label as DiscoverPost['sentiment_label'],
    author: toAuthor(row),
  };
}

export function toProfile(row: Record<string, unknown>): DiscoverProfile {
  return {
    ...toAuthor(row),
    matching_posts: row.matching_posts as number,
    engagement: Number(row.engagement),
  };
}
