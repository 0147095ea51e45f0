// The posts dashboard and the filtered-posts drill-down: matching posts one keyset page at a time, by engagement,
// recency or overperformance; each page from the analytics store when it holds PostgreSQL's corpus version, else from
// PostgreSQL (postsFromStore, postsFromPostgres), one postsAnswer making the response from either source's rows.
import type { SQL } from 'drizzle-orm';
import type { PostSort } from '@contract/insights';
import type { PostsResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { storePostPage } from '@server/analytics/insights/posts';
import type { AnalyticsService } from '@server/analytics/service';
import { countedBase } from './counted';
import { decodeCursor, encodeCursor, type Cursor } from './cursor';
import type { InsightScope } from './request';
import { postsByIds, toPost } from './rows';
import type { PostRow } from '../post-rows';
import * as postsScan from './sources/posts-scan';
import * as rollups from './sources/rollups';
import { readOnly, type Tx } from './transactions';
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

/** One row of a page: the post's id, its sort key as PostgreSQL prints it, its overperformance (that sort only). */
export type PageRow = {
  id: number;
  k: string;
  score?: number;
};

/**
 * Where a page of posts is read: overperformance needs every matching post's engagement against its author's, so
 * only a scan of the posts serves it. By engagement or recency, when post_hours serves (the condition reads only the
 * platform, the language and date buckets, in a zone whose offset is whole hours), the total comes from it and the
 * page from the first matching posts of the sort's index, without reading every matching post; else from one scan.
 */
function pageQuery(context: InsightScope, sort: PostSort, limit: number, cursor: Cursor | null): SQL {
  if (sort === 'overperformance') return postsScan.overperformancePage(context, limit, cursor);
  const hours = rollups.postHours.serves(context);
  if (hours) return rollups.postPage(context, hours, sort, limit, cursor);
  return postsScan.postPage(context, sort, limit, cursor);
}

/**
 * A page of the post list: from the analytics store when it holds exactly the corpus version PostgreSQL's snapshot
 * sees (its page and total, then the posts looked up by id in that snapshot), else from PostgreSQL alone. Both give
 * the same page and the same cursor text, so a list's next page may come from either.
 */
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
  const stored = service ? await postsFromStore(db, context, page, service) : null;
  return postsAnswer(context, page, stored ?? (await postsFromPostgres(db, context, page)));
}

/** Which page of the list is asked for. */
interface PageAsked {
  sort: PostSort;
  limit: number;
  cursor: Cursor | null;
}

/** What a page of the list is made of, from either source. */
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
    context.scope,
  ),
});

function postsFromPostgres(db: Db, context: InsightScope, { sort, limit, cursor }: PageAsked) {
  return readOnly(
    db,
    async (tx): Promise<PostsRows> => {
      const [row] = (
        await tx.execute<{ total: number; page: PageRow[] }>(pageQuery(context, sort, limit, cursor))
      ).rows;
      return withPosts(tx, context, limit, row!.total, row!.page);
    },
    { timeZone: context.timeZone },
  );
}

/**
 * The store's page and total, the posts looked up in a snapshot of the same version (store-source.ts). By recency
 * the store gives the page's candidates, which that snapshot orders and keys to the microsecond.
 */
const postsFromStore = (
  db: Db,
  context: InsightScope,
  { sort, limit, cursor }: PageAsked,
  service: AnalyticsService,
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
                postsScan.recencyPageOfIds(rows.candidates, context.scope, limit, cursor),
              )
            ).rows.map((row) => ({ id: Number(row.id), k: row.k }));
      return withPosts(tx, context, limit, rows.total, page);
    },
  );

/** What the filtered posts count, in words (the list's and its export's). */
export const postsCounted = (context: InsightScope, sort: PostSort) =>
  `${countedBase(context)}; ${SORT_WORDS[sort]}, ties by the higher id; engagement = likes + comments + shares.`;

/** The answer from the rows, the same whichever source read them. */
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
