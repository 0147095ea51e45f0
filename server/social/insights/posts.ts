// The posts dashboard and the filtered-posts drill-down: matching posts one keyset page at a time, by engagement,
// recency or overperformance.
import type { SQL } from 'drizzle-orm';
import type { PostSort } from '@contract/insights';
import type { PostsResponse } from '@contract/insights-responses';
import type { Db } from '@server/db/database';
import { ApiError } from '@server/errors';
import { countedBase } from './counted';
import { decodeCursor, encodeCursor, type Cursor } from './cursor';
import type { InsightScope } from './request';
import { postsByIds, toPost } from './rows';
import * as postsScan from './sources/posts-scan';
import * as rollups from './sources/rollups';
import { readOnly } from './transactions';

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

type PageRow = {
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
        scope,
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
