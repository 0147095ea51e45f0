// The posts dashboard and the filtered-posts drill-down: matching posts one keyset page at a time, by engagement,
// recency or overperformance. The analytics store gives each page and the total (server/analytics/figures/posts.ts);
// the posts are then looked up by id in PostgreSQL (store-source.ts), which orders a page by recency to the
// microsecond (recencyPage).
import { sql } from 'drizzle-orm';
import type { PostSort } from '@contract/insights';
import type { PostsResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { storePostPage, type PageRow } from '@server/analytics/figures/posts';
import type { AnalyticsService } from '@server/analytics/service';
import { countedBase } from './counted';
import { decodeCursor, encodeCursor, type Cursor } from './cursor';
import type { InsightScope } from './request';
import { postsByIds, toPost } from './rows';
import type { PostRow } from '../post-rows';
import type { Tx } from './transactions';
import { fromStore } from './store-source';

const OVERPERFORMANCE_RULE =
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

const RECENCY_KEY = sql`to_char(posted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * A page by recency of the posts with these ids (the candidates the analytics store gives,
 * server/analytics/figures/posts.ts): ordered, cut after the cursor and keyed by the posts' own times, which the store
 * keeps to the millisecond only. Looked up by id within the range (its months' partitions alone).
 */
function recencyPage(ids: number[], range: { from: Date; to: Date }, limit: number, cursor: Cursor | null) {
  const after = cursor ? sql`AND (posted_at, id) < (${cursor.key}::timestamptz, ${cursor.ties[0]!})` : sql``;
  // The candidates fetched by id first (MATERIALIZED), then sorted: with a few hundred ids or more the planner would
  // otherwise walk each month's partition by time in a Merge Append, reading the whole of every month the candidates
  // are not in (a 90-day page of every post at 10M posts: over 10 s, against a few ms this way).
  return sql`WITH c AS MATERIALIZED (SELECT id, posted_at FROM posts
      WHERE id = ANY(${sql.param(ids)}::bigint[])
        AND posted_at >= ${range.from.toISOString()}::timestamptz AND posted_at < ${range.to.toISOString()}::timestamptz)
    SELECT id, ${RECENCY_KEY} AS k FROM c WHERE true ${after}
    ORDER BY posted_at DESC, id DESC LIMIT ${limit + 1}`;
}

/** A page of the post list: the store's page and total, then the posts looked up by id in PostgreSQL. */
export async function postList(
  db: Db,
  context: InsightScope,
  options: { sort: PostSort; limit: number; cursor?: string | undefined },
  service?: AnalyticsService,
): Promise<PostsResponse> {
  const { sort, limit } = options;
  const cursor = options.cursor ? decodeCursor(options.cursor, context, sort) : null;
  if (cursor && (!KEY_PATTERN[sort].test(cursor.key) || cursor.ties.length !== 1)) {
    throw new ApiError(400, 'invalid_cursor', 'This cursor is not valid.');
  }
  const page = { sort, limit, cursor };
  return postsAnswer(context, page, await postsFromStore(db, context, page, service));
}

/** Which page of the list is asked for. */
interface PageAsked {
  sort: PostSort;
  limit: number;
  cursor: Cursor | null;
}

/** What a page of the list is made of. */
interface PostsRows {
  total: number;
  /** The page's rows in order, limit + 1 at most (one more says there is a next page). */
  page: PageRow[];
  /** The page's posts by id. */
  posts: Map<number, PostRow>;
}

/** The page's first `limit` posts looked up by id in the snapshot the page was read in. */
const withPosts = async (tx: Tx, context: InsightScope, limit: number, total: number, page: PageRow[]) => ({
  total,
  page,
  posts: await postsByIds(
    tx,
    page.slice(0, limit).map((p) => p.id),
    context,
  ),
});

/**
 * The store's page and total, the posts looked up in a snapshot of the same version (store-source.ts). By recency
 * the store gives the page's candidates, which that snapshot orders and keys to the microsecond.
 */
const postsFromStore = (
  db: Db,
  context: InsightScope,
  { sort, limit, cursor }: PageAsked,
  service: AnalyticsService | undefined,
) =>
  fromStore(
    db,
    context,
    service,
    (store, storeScope) => storePostPage(store, storeScope, sort, limit, cursor),
    async (tx, rows): Promise<PostsRows> => {
      const page =
        'page' in rows
          ? rows.page
          : (
              await tx.execute<{ id: string; k: string }>(
                recencyPage(rows.candidates, context.scope, limit, cursor),
              )
            ).rows.map((row) => ({ id: Number(row.id), k: row.k }));
      return withPosts(tx, context, limit, rows.total, page);
    },
    { shareMatches: true },
  );

/** What the filtered posts count, in words (the list's and its export's). */
export const postsCounted = (context: InsightScope, sort: PostSort) =>
  `${countedBase(context)}; ${SORT_WORDS[sort]}, ties by the higher id; engagement = likes + comments + shares.`;

/** The answer from the rows. */
function postsAnswer(context: InsightScope, { sort, limit }: PageAsked, rows: PostsRows): PostsResponse {
  const { scope, timeZone } = context;
  const page = rows.page.slice(0, limit);
  const more = rows.page.length > limit;
  const last = page.at(-1);
  return {
    time_zone: timeZone,
    range: { from: scope.from.toISOString(), to: scope.to.toISOString() },
    query: context.normalized,
    counted: postsCounted(context, sort),
    sort,
    total: rows.total,
    posts: page.map((p) =>
      toPost(rows.posts.get(p.id)!, context.corrections, sort === 'overperformance' ? p.score! : null),
    ),
    next_cursor:
      more && last
        ? encodeCursor(
            { key: last.k, ties: [last.id], from: scope.from.toISOString(), to: scope.to.toISOString() },
            context,
            sort,
          )
        : null,
  };
}
